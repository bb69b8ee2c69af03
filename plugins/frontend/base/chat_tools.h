// The `tools` and `tool_choice` of an OpenAI chat request as the typed tools of a generate
// request: the checks OpenAI makes (each tool {"type": "function", "function": {"name",
// "description"?, "parameters"?}}, names of 1 to 64 [A-Za-z0-9_-], none twice; tool_choice
// "none", "auto", "required" or a function among the tools). Errors are RequestRefused 400
// naming the field ("tools[1].function.name", "tool_choice").
#pragma once

#include <zen/task.hpp>

#include <string>
#include <vector>

#include "json_fields.h"

namespace zen::frontend {

// OpenAI's rule for function names: 1 to 64 of [A-Za-z0-9_-].
inline constexpr size_t kMaxToolNameLength = 64;

// `tools` null (absent) or an array; each tool's parameters are the schema's JSON text in the
// client's key order (the template shows it as sent), "" when it has none.
std::vector<task::Tool> read_tools(const Json& tools);

struct ToolChoice {
  zen_tool_choice kind = ZEN_TOOL_CHOICE_AUTO;
  std::string name;  // ZEN_TOOL_CHOICE_FUNCTION
};

// tool_choice null (absent) is "auto", which the engine reads as "none" when the request ends
// up with no tools (the server may add tools of its own).
ToolChoice read_tool_choice(const Json& tool_choice, const std::vector<task::Tool>& tools);

}  // namespace zen::frontend
