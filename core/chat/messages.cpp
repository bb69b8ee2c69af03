#include "chat/messages.h"

#include <map>

namespace zen::chat {
namespace {

std::string message_at(size_t i) { return "messages[" + std::to_string(i) + "]"; }

const char* kind_name(zen_content_kind kind) {
  switch (kind) {
    case ZEN_CONTENT_TEXT:
      return "text";
    case ZEN_CONTENT_IMAGE:
      return "image";
    case ZEN_CONTENT_AUDIO:
      return "audio";
  }
  return "unknown";
}

std::string text_content(const task::Message& m, const std::string& where) {
  std::string text;
  for (size_t j = 0; j < m.content.size(); ++j) {
    const task::ContentPart& part = m.content[j];
    if (part.kind != ZEN_CONTENT_TEXT) {
      const std::string p = where + ".content[" + std::to_string(j) + "]";
      throw RequestError(
          p + ".type", p + ": '" + kind_name(part.kind) + "' content is not supported (text only)");
    }
    if (j > 0) text += '\n';
    text += part.text;
  }
  return text;
}

Json arguments_object(const std::string& text, const std::string& where) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return Json::object();
  Json parsed = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_object()) return parsed;
  throw RequestError(where, where + " must be a JSON object, as a string");
}

Json tool_calls(const std::vector<task::ToolCall>& calls, const std::string& where,
                std::map<std::string, std::string>& names) {
  Json out = Json::array();
  for (size_t j = 0; j < calls.size(); ++j) {
    const std::string at = where + "[" + std::to_string(j) + "]";
    const task::ToolCall& c = calls[j];
    Json call = Json::object();
    if (!c.id.empty()) {
      call["id"] = c.id;
      names[c.id] = c.name;
    }
    call["type"] = "function";
    call["function"] = {{"name", c.name},
                        {"arguments", arguments_object(c.arguments, at + ".function.arguments")}};
    out.push_back(std::move(call));
  }
  return out;
}

Json convert(const std::vector<task::Message>& messages) {
  if (messages.empty()) throw RequestError("messages", "'messages' must be a non-empty array");
  Json out = Json::array();
  std::map<std::string, std::string> call_names;  // tool_call_id -> function name
  for (size_t i = 0; i < messages.size(); ++i) {
    const std::string at = message_at(i);
    const task::Message& m = messages[i];
    Json msg = Json::object();
    switch (m.role) {
      case ZEN_ROLE_SYSTEM:
      case ZEN_ROLE_USER:
        msg["role"] = m.role == ZEN_ROLE_SYSTEM ? "system" : "user";
        msg["content"] = text_content(m, at);
        if (!m.name.empty()) msg["name"] = m.name;
        break;
      case ZEN_ROLE_ASSISTANT:
        msg["role"] = "assistant";
        msg["content"] = text_content(m, at);
        if (!m.reasoning.empty()) msg["reasoning_content"] = m.reasoning;
        if (!m.tool_calls.empty())
          msg["tool_calls"] = tool_calls(m.tool_calls, at + ".tool_calls", call_names);
        break;
      case ZEN_ROLE_TOOL: {
        msg["role"] = "tool";
        msg["content"] = text_content(m, at);
        msg["tool_call_id"] = m.tool_call_id;
        if (!m.name.empty()) {
          msg["name"] = m.name;
        } else if (auto it = call_names.find(m.tool_call_id); it != call_names.end()) {
          msg["name"] = it->second;
        }
        break;
      }
      default:
        throw RequestError(at + ".role",
                           at + ".role " + std::to_string(m.role) + " is not a zen_chat_role");
    }
    out.push_back(std::move(msg));
  }
  return out;
}

// Gemma's template knows user and model turns only: calls become the JSON the model was
// asked to write, results a fenced user turn (merged with neighbouring user text).
Json gemma_messages(const Json& messages, const Json& tools) {
  Json out = Json::array();
  bool last_is_result = false;  // out.back() is a user turn made from tool results
  auto add_user_text = [&](const std::string& text, bool is_result) {
    if (!out.empty() && out.back()["role"] == "user" && (last_is_result || is_result)) {
      out.back()["content"] = out.back()["content"].get<std::string>() + "\n\n" + text;
    } else {
      out.push_back({{"role", "user"}, {"content", text}});
    }
    last_is_result = is_result;
  };
  for (const Json& m : messages) {
    const std::string role = m["role"].get<std::string>();
    if (role == "tool") {
      add_user_text("```tool_output\n" + m["content"].get<std::string>() + "\n```", true);
    } else if (role == "user") {
      add_user_text(m["content"].get<std::string>(), false);
    } else if (role == "assistant" && m.contains("tool_calls")) {
      std::string text = m["content"].get<std::string>();
      for (const Json& call : m["tool_calls"]) {
        if (!text.empty()) text += '\n';
        text +=
            Json{{"name", call["function"]["name"]}, {"parameters", call["function"]["arguments"]}}
                .dump();
      }
      out.push_back({{"role", "assistant"}, {"content", text}});
      last_is_result = false;
    } else {
      out.push_back(m);
      last_is_result = false;
    }
  }
  const std::string instructions = tool_instructions(ToolFormat::kGemma, tools);
  if (!instructions.empty()) {
    if (!out.empty() && out[0]["role"] == "system") {
      out[0]["content"] = instructions + "\n\n" + out[0]["content"].get<std::string>();
    } else {
      out.insert(out.begin(), Json{{"role", "system"}, {"content", instructions}});
    }
  }
  return out;
}

}  // namespace

Json template_tools(const std::vector<task::Tool>& tools) {
  Json out = Json::array();
  for (const task::Tool& t : tools) {
    Json fn = {{"name", t.name}};
    if (!t.description.empty()) fn["description"] = t.description;
    if (!t.parameters.empty()) {
      // Ordered: the template shows the schema in the client's key order.
      Json schema = Json::parse(t.parameters, nullptr, /*allow_exceptions=*/false);
      if (!schema.is_object())
        throw RequestError("tools",
                           "the parameters of tool '" + t.name + "' are not a JSON Schema object");
      fn["parameters"] = std::move(schema);
    }
    out.push_back(Json{{"type", "function"}, {"function", std::move(fn)}});
  }
  return out;
}

tmpl::ChatInputs chat_inputs(const std::vector<task::Message>& messages,
                             const std::vector<task::Tool>& tools, ToolFormat format) {
  const Json tool_list = template_tools(tools);
  tmpl::ChatInputs in;
  in.messages = convert(messages);
  if (format == ToolFormat::kGemma) {
    in.messages = gemma_messages(in.messages, tool_list);
  } else if (!tool_list.empty()) {
    in.tools = tool_list;
  }
  return in;
}

}  // namespace zen::chat
