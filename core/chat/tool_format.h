// How a model writes tool calls, recognized from its chat template (docs/TOOL-CALLS.md):
//   hermes  <tool_call>{"name": ..., "arguments": {...}}</tool_call> (Qwen 2.5/3, QwQ, Hermes)
//   llama3  {"name": ..., "parameters": {...}} as the whole answer, optionally after
//           <|python_tag|> (Llama 3.1/3.2/3.3)
//   gemma   the same JSON object, optionally in a ``` fence; Gemma has no tool tokens, so the
//           tools are described in the system prompt (Google's documented JSON prompt)
//   none    tool calls are not recognized
#pragma once

#include <string_view>

namespace zen::chat {

enum class ToolFormat { kNone, kHermes, kLlama3, kGemma };

// `template_source` may be empty (the file has none; the host then uses a built-in template
// for `architecture`).
ToolFormat detect_tool_format(std::string_view template_source, std::string_view architecture);

std::string_view to_string(ToolFormat format);

// Whether the template knows the <think> reasoning convention (Qwen3, QwQ, DeepSeek R1...).
bool template_has_reasoning(std::string_view template_source);

// Whether a rendered prompt leaves the model inside reasoning: it ends with "<think>" (and
// whitespace), as QwQ's and DeepSeek R1's generation prompts do, so the output starts with
// reasoning and has no opening tag of its own.
bool prompt_opens_reasoning(std::string_view rendered_prompt);

}  // namespace zen::chat
