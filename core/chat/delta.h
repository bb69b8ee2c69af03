// What the output parser makes of generated text: pieces of an assistant message in the order
// they were generated, shaped like OpenAI's streaming deltas, and the whole message they add
// up to (what a non-streaming response carries).
#pragma once

#include <string>
#include <vector>

namespace zen::chat {

struct Delta {
  enum class Kind {
    kContent,        // text: answer text
    kReasoning,      // text: reasoning ("reasoning_content")
    kToolCallStart,  // tool_index, id ("call_..."), name: a new call; arguments follow
    kToolArguments,  // tool_index, text: the next piece of that call's arguments JSON
  };
  Kind kind = Kind::kContent;
  std::string text;
  int tool_index = -1;
  std::string id;
  std::string name;

  bool operator==(const Delta&) const = default;
};

struct ToolCall {
  std::string id, name, arguments;  // arguments: a JSON text, as the model wrote it
  bool operator==(const ToolCall&) const = default;
};

struct Message {
  std::string content, reasoning;
  std::vector<ToolCall> tool_calls;
  bool operator==(const Message&) const = default;
};

// Adds deltas to a message (the concatenation rule clients apply to streamed chunks).
void add_to(Message& message, const Delta& delta);
void add_to(Message& message, const std::vector<Delta>& deltas);

}  // namespace zen::chat
