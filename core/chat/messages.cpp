#include "chat/messages.h"

#include <map>

namespace zen::chat {
namespace {

std::string message_at(size_t i) { return "messages[" + std::to_string(i) + "]"; }

std::string text_content(const Json& message, const std::string& where, bool null_ok) {
  auto it = message.find("content");
  const std::string field = where + ".content";
  if (it == message.end() || it->is_null()) {
    if (null_ok) return "";
    throw RequestError(field, field + " is required");
  }
  if (it->is_string()) return it->get<std::string>();
  if (!it->is_array())
    throw RequestError(field, field + " must be a string or an array of content parts");
  std::string text;
  for (size_t j = 0; j < it->size(); ++j) {
    const Json& part = (*it)[j];
    const std::string p = field + "[" + std::to_string(j) + "]";
    if (!part.is_object() || !part.contains("type") || !part["type"].is_string())
      throw RequestError(p, p + " must be an object with a \"type\"");
    const std::string type = part["type"].get<std::string>();
    if (type != "text")
      throw RequestError(p + ".type", p + ": '" + type + "' content is not supported (text only)");
    if (!part.contains("text") || !part["text"].is_string())
      throw RequestError(p + ".text", p + ".text must be a string");
    if (j > 0) text += '\n';
    text += part["text"].get<std::string>();
  }
  return text;
}

Json arguments_object(const Json& args, const std::string& where) {
  if (args.is_object()) return args;
  if (args.is_string()) {
    const std::string& s = args.get_ref<const std::string&>();
    if (s.find_first_not_of(" \t\r\n") == std::string::npos) return Json::object();
    Json parsed = Json::parse(s, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_object()) return parsed;
  }
  throw RequestError(where, where + " must be a JSON object, as a string");
}

Json tool_calls(const Json& calls, const std::string& where,
                std::map<std::string, std::string>& names) {
  if (!calls.is_array()) throw RequestError(where, where + " must be an array");
  Json out = Json::array();
  for (size_t j = 0; j < calls.size(); ++j) {
    const std::string at = where + "[" + std::to_string(j) + "]";
    const Json& c = calls[j];
    if (!c.is_object()) throw RequestError(at, at + " must be an object");
    if (c.contains("type") && c["type"] != "function")
      throw RequestError(at + ".type", at + ".type must be \"function\"");
    auto fn = c.find("function");
    if (fn == c.end() || !fn->is_object() || !fn->contains("name") || !(*fn)["name"].is_string())
      throw RequestError(at + ".function", at + ".function must be an object with a name");
    Json call = Json::object();
    const std::string name = (*fn)["name"].get<std::string>();
    if (c.contains("id")) {
      if (!c["id"].is_string()) throw RequestError(at + ".id", at + ".id must be a string");
      call["id"] = c["id"];
      names[c["id"].get<std::string>()] = name;
    }
    call["type"] = "function";
    call["function"] = {{"name", name},
                        {"arguments", arguments_object(fn->value("arguments", Json("")),
                                                       at + ".function.arguments")}};
    out.push_back(std::move(call));
  }
  return out;
}

Json convert(const Json& messages) {
  if (!messages.is_array() || messages.empty())
    throw RequestError("messages", "'messages' must be a non-empty array");
  Json out = Json::array();
  std::map<std::string, std::string> call_names;  // tool_call_id -> function name
  for (size_t i = 0; i < messages.size(); ++i) {
    const std::string at = message_at(i);
    const Json& m = messages[i];
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string())
      throw RequestError(at, at + " must be an object with a string \"role\"");
    std::string role = m["role"].get<std::string>();
    if (role == "developer") role = "system";
    Json msg = Json::object();
    msg["role"] = role;
    if (role == "system" || role == "user") {
      msg["content"] = text_content(m, at, false);
      if (m.contains("name") && m["name"].is_string()) msg["name"] = m["name"];
    } else if (role == "assistant") {
      msg["content"] = text_content(m, at, true);
      for (const char* key : {"reasoning_content", "thinking", "reasoning"})
        if (m.contains(key) && m[key].is_string()) msg[key] = m[key];
      if (m.contains("tool_calls") && !m["tool_calls"].is_null()) {
        Json calls = tool_calls(m["tool_calls"], at + ".tool_calls", call_names);
        if (!calls.empty()) msg["tool_calls"] = std::move(calls);
      }
    } else if (role == "tool") {
      if (!m.contains("tool_call_id") || !m["tool_call_id"].is_string())
        throw RequestError(at + ".tool_call_id", at + ".tool_call_id must be a string");
      msg["content"] = text_content(m, at, false);
      const std::string id = m["tool_call_id"].get<std::string>();
      msg["tool_call_id"] = id;
      if (m.contains("name") && m["name"].is_string()) {
        msg["name"] = m["name"];
      } else if (auto it = call_names.find(id); it != call_names.end()) {
        msg["name"] = it->second;
      }
    } else {
      throw RequestError(at + ".role", at + ".role '" + role +
                                           "' is not one of system, developer, user, "
                                           "assistant, tool");
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

tmpl::ChatInputs chat_inputs(const Json& messages, const Json& tools, ToolFormat format) {
  tool_names(tools);  // validates
  const bool has_tools = tools.is_array() && !tools.empty();
  tmpl::ChatInputs in;
  in.messages = convert(messages);
  if (format == ToolFormat::kGemma) {
    in.messages = gemma_messages(in.messages, tools);
  } else if (has_tools) {
    in.tools = tools;
  }
  return in;
}

}  // namespace zen::chat
