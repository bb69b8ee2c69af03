// Builds the syntax tree from tokens with jinja2's grammar and operator precedence, and reports
// what jinja2 rejects at compile time: syntax errors, unknown filters and tests outside `if`
// branches, unsupported tags (include, import, extends... need files: a chat template has none).
#pragma once

#include <string_view>

#include "ast.h"

namespace zen::tmpl {

struct ParseLimits {
  uint32_t max_nesting = 128;  // nested blocks plus nested expression levels
};

// Throws Error(Syntax) or Error(Limit).
Body parse_template(std::string_view source, const ParseLimits& limits);

}  // namespace zen::tmpl
