// A chat choice's generated text read as an assistant message: content, reasoning and tool
// calls (core/chat's OutputParser), merged into the fields of the engine's delta events.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <zen/task.hpp>

#include "chat/delta.h"
#include "chat/tool_format.h"

namespace zen::chat {
class OutputParser;
}

namespace zen::serving {

// How one request's output is read; the same for each of its choices.
struct OutputSpec {
  chat::ToolFormat format = chat::ToolFormat::kNone;  // kNone: tool calls are not parsed
  std::vector<std::string> tool_names;                // calls to other names stay content
  bool reasoning = false;                             // split <think>...</think>
  bool starts_in_reasoning = false;                   // the prompt opened <think> already
  std::string forced_prefix;                          // generation was started with this text
  bool parallel_tool_calls = true;                    // false: calls after the first are content
};

class ChatOutput {
 public:
  explicit ChatOutput(const OutputSpec& spec);
  ~ChatOutput();

  // Adds what `text` completes to `delta` (content, reasoning, tool-call pieces).
  void push(std::string_view text, task::GenerateEvent& delta);
  // The end of the output: whatever the parser held back.
  void finish(task::GenerateEvent& delta);
  bool has_tool_calls() const;

 private:
  void add(const std::vector<chat::Delta>& deltas, task::GenerateEvent& delta);

  std::unique_ptr<chat::OutputParser> parser_;
};

}  // namespace zen::serving
