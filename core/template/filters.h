// jinja2's built-in filters (`value | name(args)`) with their Python semantics, and
// transformers' tojson (json.dumps without HTML escaping, with indent/separators/sort_keys).
#pragma once

#include <string_view>

#include "value.h"

namespace zen::tmpl {

class Interpreter;

// Whether jinja2 (as transformers configures it) knows this filter. A few known filters
// (urlize, wordwrap, ...) are not implemented: using them is a render error.
bool has_filter(std::string_view name);
Value run_filter(Interpreter& interp, std::string_view name, const Value& input,
                 const CallArgs& args);

}  // namespace zen::tmpl
