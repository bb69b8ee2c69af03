// render_chat: the variables transformers' apply_chat_template passes to a chat template.
#include "template.h"

namespace zen::tmpl {
namespace {

[[noreturn]] void bad_input(const std::string& message) {
  throw Error(ErrorKind::Render, "chat input: " + message, 0, 0);
}

// transformers copies a message's reasoning under both names templates read: it builds
// {"thinking": r, **message, "reasoning_content": r} from the first non-null of
// reasoning_content, thinking and reasoning.
Json alias_reasoning(const Json& message) {
  static constexpr const char* kFields[] = {"reasoning_content", "thinking", "reasoning"};
  const Json* reasoning = nullptr;
  for (const char* f : kFields) {
    auto it = message.find(f);
    if (it != message.end() && !it->is_null()) {
      reasoning = &*it;
      break;
    }
  }
  if (reasoning == nullptr) return message;
  Json out = Json::object();
  out["thinking"] = *reasoning;
  for (const auto& [key, value] : message.items()) out[key] = value;
  out["reasoning_content"] = *reasoning;
  return out;
}

Json chat_context(const ChatInputs& in) {
  if (!in.messages.is_array()) bad_input("messages must be a JSON array");
  Json messages = Json::array();
  for (const Json& m : in.messages) {
    if (!m.is_object()) bad_input("every message must be a JSON object, got " + m.dump());
    messages.push_back(alias_reasoning(m));
  }
  if (!in.extra.is_object()) bad_input("extra variables must be a JSON object");
  Json ctx = Json::object();
  ctx["messages"] = std::move(messages);
  ctx["tools"] = in.tools ? *in.tools : Json(nullptr);
  ctx["documents"] = in.documents ? *in.documents : Json(nullptr);
  ctx["add_generation_prompt"] = in.add_generation_prompt;
  if (in.bos_token) ctx["bos_token"] = *in.bos_token;
  if (in.eos_token) ctx["eos_token"] = *in.eos_token;
  for (const auto& [key, value] : in.extra.items()) {
    if (key == "messages" || key == "tools" || key == "documents" || key == "add_generation_prompt")
      bad_input("extra variable '" + key + "' would replace a chat input");
    ctx[key] = value;
  }
  return ctx;
}

}  // namespace

std::string render_chat(const Template& tmpl, const ChatInputs& inputs) {
  return tmpl.render(chat_context(inputs), inputs.options);
}

std::string render_chat(std::string_view source, const ChatInputs& inputs, const Limits& limits) {
  return render_chat(Template::parse(source, limits), inputs);
}

}  // namespace zen::tmpl
