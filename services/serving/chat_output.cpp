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

void ChatOutput::push(std::string_view text, task::GenerateEvent& delta) {
  if (!text.empty()) add(parser_->push(text), delta);
}

void ChatOutput::finish(task::GenerateEvent& delta) { add(parser_->finish(), delta); }

// A call's arguments pieces join the entry of that call when it is the last one in this delta
// (clients concatenate either way).
void ChatOutput::add(const std::vector<chat::Delta>& deltas, task::GenerateEvent& delta) {
  for (const chat::Delta& d : deltas) {
    const uint32_t index = static_cast<uint32_t>(d.tool_index);
    switch (d.kind) {
      case chat::Delta::Kind::kContent:
        delta.content += d.text;
        break;
      case chat::Delta::Kind::kReasoning:
        delta.reasoning += d.text;
        break;
      case chat::Delta::Kind::kToolCallStart:
        delta.tool_calls.push_back(task::ToolCallDelta{index, d.id, d.name, ""});
        break;
      case chat::Delta::Kind::kToolArguments:
        if (!delta.tool_calls.empty() && delta.tool_calls.back().index == index)
          delta.tool_calls.back().arguments += d.text;
        else
          delta.tool_calls.push_back(task::ToolCallDelta{index, "", "", d.text});
        break;
    }
  }
}

}  // namespace zen::serving
