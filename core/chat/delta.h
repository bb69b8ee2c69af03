// What the output parser makes of generated text: pieces of an assistant message in the order
// they were generated, shaped like OpenAI's streaming deltas.
#pragma once

#include <string>

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

}  // namespace zen::chat
