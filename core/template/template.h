// Zen Engine's chat-template engine: a sandboxed Jinja2 interpreter that renders the chat
// templates models ship (tokenizer.chat_template) exactly as Python jinja2 does when
// transformers' apply_chat_template runs them: trim_blocks and lstrip_blocks on, the globals
// raise_exception / strftime_now / namespace / dict, loop controls, and transformers' tojson.
// It has no I/O at all, and every render runs under limits on steps, output size and
// recursion, so a hostile template or input fails with an Error instead of hurting the host.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "error.h"
#include "options.h"

namespace zen::tmpl {

// Ordered so that dicts keep their key order, as Python's do (tojson output depends on it).
using Json = nlohmann::ordered_json;

class Template {
 public:
  // Throws Error (Syntax, or Limit for an oversized or too deeply nested template).
  static Template parse(std::string_view source, const Limits& limits = {});

  // `context` is an object whose keys become template variables. Throws Error. Thread-safe:
  // one parsed Template may render concurrently.
  std::string render(const Json& context, const RenderOptions& options = {}) const;

  const Limits& limits() const { return limits_; }

 private:
  struct Parsed;
  std::shared_ptr<const Parsed> parsed_;
  Limits limits_;
};

// What a chat template is rendered with, mirroring transformers' apply_chat_template.
struct ChatInputs {
  Json messages = Json::array();
  // Absent tools/documents are passed as None, as transformers does (`tools is defined` is
  // then true and `tools is none` true).
  std::optional<Json> tools;
  std::optional<Json> documents;
  bool add_generation_prompt = false;
  // Special tokens; unset ones are undefined in the template.
  std::optional<std::string> bos_token;
  std::optional<std::string> eos_token;
  // More variables: enable_thinking, date_string, reasoning_effort, ...
  Json extra = Json::object();
  RenderOptions options;
};

// Renders a chat. Like transformers, each message's reasoning ("reasoning_content",
// "thinking" or "reasoning") is made available under both "reasoning_content" and "thinking".
std::string render_chat(const Template& tmpl, const ChatInputs& inputs);
std::string render_chat(std::string_view source, const ChatInputs& inputs,
                        const Limits& limits = {});

// A template for architectures whose GGUF files commonly lack tokenizer.chat_template
// ("gemma3": Gemma 3's own template), and "chatml" as a generic fallback.
std::optional<std::string_view> builtin_template(std::string_view architecture);

}  // namespace zen::tmpl
