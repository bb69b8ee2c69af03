#include "chat_output.h"

#include "chat/output_parser.h"

namespace zen::serving {

ChatOutput::ChatOutput(const OutputSpec& spec) {
  chat::OutputParser::Options o;
  o.format = spec.format;
  o.tool_names = spec.tool_names;
  o.reasoning = spec.reasoning;
  o.starts_in_reasoning = spec.starts_in_reasoning;
  o.forced_prefix = spec.forced_prefix;
  o.parallel_tool_calls = spec.parallel_tool_calls;
  parser_ = std::make_unique<chat::OutputParser>(o);
}

ChatOutput::~ChatOutput() = default;

bool ChatOutput::has_tool_calls() const { return parser_->tool_calls() > 0; }

void ChatOutput::push(std::string_view text, Json& delta) {
  if (!text.empty()) add(parser_->push(text), delta);
}

void ChatOutput::finish(Json& delta) { add(parser_->finish(), delta); }

// Consecutive pieces of one kind become one field; a call's arguments pieces join the entry of
// that call when it is the last one in this delta (OpenAI clients concatenate either way).
void ChatOutput::add(const std::vector<chat::Delta>& deltas, Json& delta) {
  auto append = [&](const char* key, const std::string& text) {
    if (text.empty()) return;
    delta[key] = delta.value(key, std::string()) + text;
  };
  for (const chat::Delta& d : deltas) {
    switch (d.kind) {
      case chat::Delta::Kind::kContent:
        append("content", d.text);
        break;
      case chat::Delta::Kind::kReasoning:
        append("reasoning_content", d.text);
        break;
      case chat::Delta::Kind::kToolCallStart:
        delta["tool_calls"].push_back(Json{{"index", d.tool_index},
                                           {"id", d.id},
                                           {"type", "function"},
                                           {"function", {{"name", d.name}, {"arguments", ""}}}});
        break;
      case chat::Delta::Kind::kToolArguments: {
        Json& calls = delta["tool_calls"];
        if (!calls.empty() && calls.back()["index"] == d.tool_index) {
          std::string& args = calls.back()["function"]["arguments"].get_ref<std::string&>();
          args += d.text;
        } else {
          calls.push_back(Json{{"index", d.tool_index}, {"function", {{"arguments", d.text}}}});
        }
        break;
      }
    }
  }
}

}  // namespace zen::serving
