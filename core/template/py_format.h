// Python's str() and repr() of template values, which is what `{{ value }}` prints: `{{ [1,
// 'a', none] }}` gives "[1, 'a', None]" and `{{ 1e16 }}` gives "1e+16", exactly as jinja2 does.
#pragma once

#include <string>
#include <string_view>

#include "value.h"

namespace zen::tmpl {

std::string py_str(const Value& v);
std::string py_repr(const Value& v);
// repr of a value found `depth` levels inside another one being printed.
std::string py_repr(const Value& v, uint32_t depth);
// Python repr(float): shortest round-trip digits, "1.0", "1e+16", "inf", "nan".
std::string float_repr(double d);
// Python repr(str): quoted, with Python's choice of quotes and escapes.
std::string string_repr(std::string_view s);

}  // namespace zen::tmpl
