// What a request's tools and tool_choice mean for generation: which names a call may use, and
// the text a generation is started with to force a call (tool_choice "required" or a named
// function), since there is no grammar-constrained sampling to force one otherwise. (The
// protocol's checks of tools and tool_choice are the frontend's.)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "chat/request_error.h"
#include "chat/tool_format.h"

namespace zen::chat {

using Json = nlohmann::ordered_json;

struct ToolChoice {
  enum class Kind { kAuto, kNone, kRequired, kFunction };
  Kind kind = Kind::kAuto;
  std::string name;  // kFunction
};

// A typed request's choice (zen_tool_choice); "auto" without tools is "none".
ToolChoice tool_choice(uint32_t choice, const std::string& name, bool has_tools);

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
