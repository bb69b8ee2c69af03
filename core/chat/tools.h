// The `tools` and `tool_choice` of an OpenAI chat request: validation, which names a call may
// use, and the text a generation is started with to force a call (tool_choice "required" or a
// named function), since there is no grammar-constrained sampling to force one otherwise.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "chat/request_error.h"
#include "chat/tool_format.h"

namespace zen::chat {

using Json = nlohmann::ordered_json;

// OpenAI's rule for function names: 1 to 64 of [A-Za-z0-9_-].
constexpr size_t kMaxToolNameLength = 64;

// Checks `tools` (null, or an array of {"type": "function", "function": {"name",
// "description"?, "parameters"?}}) and returns the function names in order. Throws RequestError
// (param "tools[i]...") for anything else, an invalid name, or a name given twice.
std::vector<std::string> tool_names(const Json& tools);

struct ToolChoice {
  enum class Kind { kAuto, kNone, kRequired, kFunction };
  Kind kind = Kind::kAuto;
  std::string name;  // kFunction
};

// tool_choice: absent (null) means "auto" when there are tools, "none" when there are none;
// "auto", "none", "required" or {"type": "function", "function": {"name": "..."}} naming one
// of `names`. Throws RequestError (param "tool_choice").
ToolChoice parse_tool_choice(const Json& tool_choice, const std::vector<std::string>& names);

// The names the output parser accepts calls to: none for "none", the one for a named
// function, else all.
std::vector<std::string> allowed_tool_names(const ToolChoice& choice,
                                            const std::vector<std::string>& names);

struct ForcedPrefix {
  bool available = true;  // false: this format cannot force the choice (answer 400)
  std::string text;       // what the generation starts with ("" when nothing is forced)
};

// For "required", the format's call opener up to the name; for a named function, up to its
// arguments. When the prompt left the model inside <think> (prompt_opens_reasoning), the
// prefix closes the reasoning first.
ForcedPrefix forced_prefix(ToolFormat format, const ToolChoice& choice,
                           bool prompt_opens_reasoning = false);

// For formats whose templates cannot show tools (gemma): the system text that describes them
// and the answer format (Google's documented JSON prompt). Empty for other formats.
std::string tool_instructions(ToolFormat format, const Json& tools);

}  // namespace zen::chat
