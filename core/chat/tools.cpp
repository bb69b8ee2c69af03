#include "chat/tools.h"

#include <algorithm>

namespace zen::chat {
namespace {

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > kMaxToolNameLength) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

std::string quoted(const std::string& s) { return Json(s).dump(); }

}  // namespace

std::vector<std::string> tool_names(const Json& tools) {
  std::vector<std::string> names;
  if (tools.is_null()) return names;
  if (!tools.is_array()) throw RequestError("tools", "'tools' must be an array");
  for (size_t i = 0; i < tools.size(); ++i) {
    const std::string at = "tools[" + std::to_string(i) + "]";
    const Json& t = tools[i];
    if (!t.is_object()) throw RequestError(at, at + " must be an object");
    auto type = t.find("type");
    if (type == t.end() || *type != "function")
      throw RequestError(at + ".type", at + ".type must be \"function\"");
    auto fn = t.find("function");
    if (fn == t.end() || !fn->is_object())
      throw RequestError(at + ".function", at + ".function must be an object");
    auto name = fn->find("name");
    if (name == fn->end() || !name->is_string() || !valid_name(name->get<std::string>()))
      throw RequestError(at + ".function.name",
                         at + ".function.name must be 1 to 64 letters, digits, '_' or '-'");
    auto params = fn->find("parameters");
    if (params != fn->end() && !params->is_object() && !params->is_null())
      throw RequestError(at + ".function.parameters",
                         at + ".function.parameters must be a JSON Schema object");
    auto description = fn->find("description");
    if (description != fn->end() && !description->is_string() && !description->is_null())
      throw RequestError(at + ".function.description",
                         at + ".function.description must be a string");
    const std::string n = name->get<std::string>();
    if (std::find(names.begin(), names.end(), n) != names.end())
      throw RequestError(at + ".function.name", "tool '" + n + "' is defined twice");
    names.push_back(n);
  }
  return names;
}

ToolChoice parse_tool_choice(const Json& tool_choice, const std::vector<std::string>& names) {
  ToolChoice choice;
  if (tool_choice.is_null()) {
    choice.kind = names.empty() ? ToolChoice::Kind::kNone : ToolChoice::Kind::kAuto;
    return choice;
  }
  if (tool_choice.is_string()) {
    const std::string s = tool_choice.get<std::string>();
    if (s == "none") {
      choice.kind = ToolChoice::Kind::kNone;
    } else if (s == "auto" || s == "required") {
      if (names.empty()) throw RequestError("tool_choice", "tool_choice '" + s + "' needs 'tools'");
      choice.kind = s == "auto" ? ToolChoice::Kind::kAuto : ToolChoice::Kind::kRequired;
    } else {
      throw RequestError("tool_choice",
                         "tool_choice must be \"none\", \"auto\", \"required\" or a function");
    }
    return choice;
  }
  const Json* name = nullptr;
  if (tool_choice.is_object() && tool_choice.value("type", Json()) == "function") {
    auto fn = tool_choice.find("function");
    if (fn != tool_choice.end() && fn->is_object()) {
      auto it = fn->find("name");
      if (it != fn->end() && it->is_string()) name = &*it;
    }
  }
  if (name == nullptr)
    throw RequestError("tool_choice",
                       "tool_choice must be a string or {\"type\": \"function\", \"function\": "
                       "{\"name\": ...}}");
  choice.kind = ToolChoice::Kind::kFunction;
  choice.name = name->get<std::string>();
  if (std::find(names.begin(), names.end(), choice.name) == names.end())
    throw RequestError("tool_choice",
                       "tool_choice names '" + choice.name + "', which is not one of the tools");
  return choice;
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
