// jinja2's tests (`value is name(args)`): defined, none, string, mapping, iterable, in, eq, ...
#pragma once

#include <string_view>

#include "value.h"

namespace zen::tmpl {

class Interpreter;

bool has_test(std::string_view name);
bool run_test(Interpreter& interp, std::string_view name, const Value& input, const CallArgs& args);

}  // namespace zen::tmpl
