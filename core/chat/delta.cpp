#include "chat/delta.h"

#include <stdexcept>

namespace zen::chat {

void add_to(Message& message, const Delta& delta) {
  switch (delta.kind) {
    case Delta::Kind::kContent:
      message.content += delta.text;
      return;
    case Delta::Kind::kReasoning:
      message.reasoning += delta.text;
      return;
    case Delta::Kind::kToolCallStart:
      if (delta.tool_index != static_cast<int>(message.tool_calls.size()))
        throw std::logic_error("tool call " + std::to_string(delta.tool_index) +
                               " started out of order");
      message.tool_calls.push_back({delta.id, delta.name, ""});
      return;
    case Delta::Kind::kToolArguments:
      if (delta.tool_index < 0 || delta.tool_index >= static_cast<int>(message.tool_calls.size()))
        throw std::logic_error("arguments for tool call " + std::to_string(delta.tool_index) +
                               " that never started");
      message.tool_calls[delta.tool_index].arguments += delta.text;
      return;
  }
}

void add_to(Message& message, const std::vector<Delta>& deltas) {
  for (const Delta& d : deltas) add_to(message, d);
}

}  // namespace zen::chat
