#include "chat/tool_format.h"

namespace zen::chat {
namespace {

bool contains(std::string_view text, std::string_view what) {
  return text.find(what) != std::string_view::npos;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

ToolFormat detect_tool_format(std::string_view source, std::string_view architecture) {
  if (contains(source, "<tool_call>")) {
    // Qwen3-Coder (<function=...>) and GLM 4.5+ (<arg_key>) put XML, not JSON, inside the
    // same tags: a format of their own, not parsed here.
    if (contains(source, "<function=") || contains(source, "<arg_key>")) return ToolFormat::kNone;
    return ToolFormat::kHermes;
  }
  // Llama 3.x templates describe the {"name", "parameters"} answer they expect. Other
  // templates on the Llama 3 header tokens (Functionary, Firefunction) have formats of their own.
  if (contains(source, "<|start_header_id|>") &&
      (contains(source, "\"parameters\"") || contains(source, "<|python_tag|>")))
    return ToolFormat::kLlama3;
  const bool gemma_template = contains(source, "<start_of_turn>");
  const bool gemma_arch = architecture.starts_with("gemma");
  if ((gemma_template || (source.empty() && gemma_arch)) && !contains(source, "tools"))
    return ToolFormat::kGemma;
  return ToolFormat::kNone;
}

std::string_view to_string(ToolFormat format) {
  switch (format) {
    case ToolFormat::kHermes:
      return "hermes";
    case ToolFormat::kLlama3:
      return "llama3";
    case ToolFormat::kGemma:
      return "gemma";
    case ToolFormat::kNone:
      break;
  }
  return "none";
}

bool template_has_reasoning(std::string_view source) { return contains(source, "<think>"); }

bool prompt_opens_reasoning(std::string_view prompt) {
  size_t end = prompt.size();
  while (end > 0 && is_space(prompt[end - 1])) --end;
  return prompt.substr(0, end).ends_with("<think>");
}

}  // namespace zen::chat
