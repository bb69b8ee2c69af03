#include "chat_tools.h"

#include <algorithm>

namespace zen::frontend {
namespace {

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > kMaxToolNameLength) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

bool has_tool(const std::vector<task::Tool>& tools, const std::string& name) {
  return std::any_of(tools.begin(), tools.end(),
                     [&](const task::Tool& t) { return t.name == name; });
}

}  // namespace

std::vector<task::Tool> read_tools(const Json& tools) {
  std::vector<task::Tool> out;
  if (tools.is_null()) return out;
  if (!tools.is_array()) refuse("tools", "'tools' must be an array");
  for (size_t i = 0; i < tools.size(); ++i) {
    const std::string at = "tools[" + std::to_string(i) + "]";
    const Json& t = tools[i];
    if (!t.is_object()) refuse(at, at + " must be an object");
    auto type = t.find("type");
    if (type == t.end() || *type != "function")
      refuse(at + ".type", at + ".type must be \"function\"");
    auto fn = t.find("function");
    if (fn == t.end() || !fn->is_object())
      refuse(at + ".function", at + ".function must be an object");
    auto name = fn->find("name");
    if (name == fn->end() || !name->is_string() || !valid_name(name->get<std::string>()))
      refuse(at + ".function.name",
             at + ".function.name must be 1 to 64 letters, digits, '_' or '-'");
    auto params = fn->find("parameters");
    if (params != fn->end() && !params->is_object() && !params->is_null())
      refuse(at + ".function.parameters", at + ".function.parameters must be a JSON Schema object");
    auto description = fn->find("description");
    if (description != fn->end() && !description->is_string() && !description->is_null())
      refuse(at + ".function.description", at + ".function.description must be a string");
    task::Tool tool;
    tool.name = name->get<std::string>();
    if (has_tool(out, tool.name))
      refuse(at + ".function.name", "tool '" + tool.name + "' is defined twice");
    if (description != fn->end() && description->is_string())
      tool.description = description->get<std::string>();
    if (params != fn->end() && params->is_object())
      tool.parameters = params->dump(-1, ' ', false, Json::error_handler_t::replace);
    out.push_back(std::move(tool));
  }
  return out;
}

ToolChoice read_tool_choice(const Json& tool_choice, const std::vector<task::Tool>& tools) {
  ToolChoice choice;
  if (tool_choice.is_null()) {
    // Absent is "auto" (the engine reads "auto" without tools as none): the server may add
    // tools of its own (MCP) that the model then may call.
    choice.kind = ZEN_TOOL_CHOICE_AUTO;
    return choice;
  }
  if (tool_choice.is_string()) {
    const std::string s = tool_choice.get<std::string>();
    if (s == "none") {
      choice.kind = ZEN_TOOL_CHOICE_NONE;
    } else if (s == "auto" || s == "required") {
      if (tools.empty()) refuse("tool_choice", "tool_choice '" + s + "' needs 'tools'");
      choice.kind = s == "auto" ? ZEN_TOOL_CHOICE_AUTO : ZEN_TOOL_CHOICE_REQUIRED;
    } else {
      refuse("tool_choice", "tool_choice must be \"none\", \"auto\", \"required\" or a function");
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
    refuse("tool_choice",
           "tool_choice must be a string or {\"type\": \"function\", \"function\": {\"name\": "
           "...}}");
  choice.kind = ZEN_TOOL_CHOICE_FUNCTION;
  choice.name = name->get<std::string>();
  if (!has_tool(tools, choice.name))
    refuse("tool_choice", "tool_choice names '" + choice.name + "', which is not one of the tools");
  return choice;
}

}  // namespace zen::frontend
