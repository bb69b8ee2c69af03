#include "chat/tools.h"

#include <zen/task.h>

#include <algorithm>

namespace zen::chat {
namespace {

std::string quoted(const std::string& s) { return Json(s).dump(); }

}  // namespace

ToolChoice tool_choice(uint32_t choice, const std::string& name, bool has_tools) {
  ToolChoice c;
  switch (choice) {
    case ZEN_TOOL_CHOICE_NONE:
      c.kind = ToolChoice::Kind::kNone;
      break;
    case ZEN_TOOL_CHOICE_REQUIRED:
      c.kind = ToolChoice::Kind::kRequired;
      break;
    case ZEN_TOOL_CHOICE_FUNCTION:
      c.kind = ToolChoice::Kind::kFunction;
      c.name = name;
      break;
    default:
      c.kind = has_tools ? ToolChoice::Kind::kAuto : ToolChoice::Kind::kNone;
      break;
  }
  return c;
}

std::vector<std::string> allowed_tool_names(const ToolChoice& choice,
                                            const std::vector<std::string>& names) {
  switch (choice.kind) {
    case ToolChoice::Kind::kNone:
      return {};
    case ToolChoice::Kind::kFunction:
      return {choice.name};
    default:
      return names;
  }
}

ForcedPrefix forced_prefix(ToolFormat format, const ToolChoice& choice,
                           bool prompt_opens_reasoning) {
  ForcedPrefix prefix;
  const bool required = choice.kind == ToolChoice::Kind::kRequired;
  if (!required && choice.kind != ToolChoice::Kind::kFunction) return prefix;
  std::string opener, args_key;
  switch (format) {
    case ToolFormat::kHermes:
      opener = "<tool_call>\n";
      args_key = "arguments";
      break;
    case ToolFormat::kLlama3:
    case ToolFormat::kGemma:
      args_key = "parameters";
      break;
    case ToolFormat::kNone:
      prefix.available = false;
      return prefix;
  }
  if (prompt_opens_reasoning) prefix.text = "</think>\n\n";
  prefix.text += opener + "{\"name\": ";
  prefix.text += required ? "\"" : quoted(choice.name) + ", \"" + args_key + "\": ";
  return prefix;
}

std::string tool_instructions(ToolFormat format, const Json& tools) {
  if (format != ToolFormat::kGemma || !tools.is_array() || tools.empty()) return {};
  Json functions = Json::array();
  for (const Json& t : tools) functions.push_back(t.at("function"));
  return "You have access to functions. If you decide to invoke any of the function(s), you "
         "MUST put it in the format of\n"
         "{\"name\": function name, \"parameters\": dictionary of argument name and its value}\n"
         "\n"
         "You SHOULD NOT include any other text in the response if you call a function\n" +
         functions.dump(2);
}

}  // namespace zen::chat
