#include "chat_messages.h"

namespace zen::frontend {
namespace {

using task::ContentPart;
using task::Message;

std::string message_at(size_t i) { return "messages[" + std::to_string(i) + "]"; }

// One text part per part the client sent: the engine joins them ("\n") as the template needs.
std::vector<ContentPart> text_content(const Json& message, const std::string& where, bool null_ok) {
  auto it = message.find("content");
  const std::string field = where + ".content";
  std::vector<ContentPart> parts;
  auto text = [&](std::string s) {
    parts.push_back(ContentPart{ZEN_CONTENT_TEXT, std::move(s), {}, {}});
  };
  if (it == message.end() || it->is_null()) {
    if (null_ok) return parts;
    refuse(field, field + " is required");
  }
  if (it->is_string()) {
    text(it->get<std::string>());
    return parts;
  }
  if (!it->is_array()) refuse(field, field + " must be a string or an array of content parts");
  for (size_t j = 0; j < it->size(); ++j) {
    const Json& part = (*it)[j];
    const std::string p = field + "[" + std::to_string(j) + "]";
    if (!part.is_object() || !part.contains("type") || !part["type"].is_string())
      refuse(p, p + " must be an object with a \"type\"");
    const std::string type = part["type"].get<std::string>();
    if (type != "text")
      refuse(p + ".type", p + ": '" + type + "' content is not supported (text only)");
    if (!part.contains("text") || !part["text"].is_string())
      refuse(p + ".text", p + ".text must be a string");
    text(part["text"].get<std::string>());
  }
  if (parts.empty()) text("");  // [] was "" before parts crossed one by one: still content
  return parts;
}

// The arguments as the client sent them: a string as it is, anything else as its JSON (an
// object, or what the engine then refuses as not one).
std::string arguments_text(const Json& fn) {
  auto it = fn.find("arguments");
  if (it == fn.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  return it->dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::vector<task::ToolCall> tool_calls(const Json& calls, const std::string& where) {
  if (!calls.is_array()) refuse(where, where + " must be an array");
  std::vector<task::ToolCall> out;
  for (size_t j = 0; j < calls.size(); ++j) {
    const std::string at = where + "[" + std::to_string(j) + "]";
    const Json& c = calls[j];
    if (!c.is_object()) refuse(at, at + " must be an object");
    if (c.contains("type") && c["type"] != "function")
      refuse(at + ".type", at + ".type must be \"function\"");
    auto fn = c.find("function");
    if (fn == c.end() || !fn->is_object() || !fn->contains("name") || !(*fn)["name"].is_string())
      refuse(at + ".function", at + ".function must be an object with a name");
    task::ToolCall call;
    call.name = (*fn)["name"].get<std::string>();
    if (c.contains("id")) {
      if (!c["id"].is_string()) refuse(at + ".id", at + ".id must be a string");
      call.id = c["id"].get<std::string>();
    }
    call.arguments = arguments_text(*fn);
    out.push_back(std::move(call));
  }
  return out;
}

void keep_name(const Json& m, Message& msg) {
  if (m.contains("name") && m["name"].is_string()) msg.name = m["name"].get<std::string>();
}

}  // namespace

std::vector<Message> read_messages(const Json& messages) {
  if (!messages.is_array() || messages.empty())
    refuse("messages", "'messages' must be a non-empty array");
  std::vector<Message> out;
  for (size_t i = 0; i < messages.size(); ++i) {
    const std::string at = message_at(i);
    const Json& m = messages[i];
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string())
      refuse(at, at + " must be an object with a string \"role\"");
    const std::string role = m["role"].get<std::string>();
    Message msg;
    if (role == "system" || role == "developer" || role == "user") {
      msg.role = role == "user" ? ZEN_ROLE_USER : ZEN_ROLE_SYSTEM;
      msg.content = text_content(m, at, false);
      keep_name(m, msg);
    } else if (role == "assistant") {
      msg.role = ZEN_ROLE_ASSISTANT;
      msg.content = text_content(m, at, true);
      // The names clients and templates use for earlier reasoning; the first one given counts.
      for (const char* key : {"reasoning_content", "thinking", "reasoning"}) {
        if (m.contains(key) && m[key].is_string()) {
          msg.reasoning = m[key].get<std::string>();
          break;
        }
      }
      if (m.contains("tool_calls") && !m["tool_calls"].is_null())
        msg.tool_calls = tool_calls(m["tool_calls"], at + ".tool_calls");
    } else if (role == "tool") {
      msg.role = ZEN_ROLE_TOOL;
      if (!m.contains("tool_call_id") || !m["tool_call_id"].is_string())
        refuse(at + ".tool_call_id", at + ".tool_call_id must be a string");
      msg.content = text_content(m, at, false);
      msg.tool_call_id = m["tool_call_id"].get<std::string>();
      keep_name(m, msg);
    } else {
      refuse(at + ".role",
             at + ".role '" + role + "' is not one of system, developer, user, assistant, tool");
    }
    out.push_back(std::move(msg));
  }
  return out;
}

}  // namespace zen::frontend
