// The functions a template can call without a context variable, as transformers sets them up:
// range (sandbox-capped), dict, namespace, raise_exception, strftime_now, plus jinja2's
// cycler and joiner.
#pragma once

#include <string_view>

#include "value.h"

namespace zen::tmpl {

class Interpreter;

Mapping make_globals(Interpreter& interp);

// namespace() objects: the only values a template may modify ({% set ns.x = ... %}).
bool is_namespace(const Object& o);
void namespace_set(Object& ns, std::string_view name, Value value);

// jinja2's sandbox refuses ranges longer than this.
inline constexpr int64_t kMaxRange = 100000;

}  // namespace zen::tmpl
