// Methods of built-in values that templates call: str (split, strip, startswith, replace,
// format, ...), dict (get, items, keys, values) and list/tuple (count, index).
#pragma once

#include <string_view>

#include "budget.h"
#include "value.h"

namespace zen::tmpl {

enum class MethodSafety { Missing, Safe, Unsafe };

// Whether `self` (a str, dict, list, tuple or range) has a method `name`, and whether the
// immutable sandbox allows it (methods that modify the value are unsafe).
MethodSafety method_safety(const Value& self, std::string_view name);
Value call_method(Budget& budget, const Value& self, std::string_view name, const CallArgs& args);

// Python str.split / str.splitlines, shared with filters.
ValueList split_string(std::string_view s, const Value& sep, int64_t maxsplit, bool from_right);
ValueList split_lines(std::string_view s, bool keep_ends);

}  // namespace zen::tmpl
