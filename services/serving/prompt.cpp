#include "prompt.h"

#include "api_error.h"
#include "chat/messages.h"
#include "chat_checked.h"
#include "chat_template.h"
#include "template/template.h"

namespace zen::serving {
namespace {

// Reasoning is read out of the answer for templates that know <think>, unless the client
// turned thinking off (chat_template_kwargs.enable_thinking = false).
bool wants_reasoning(const ServedModel& model, const GenerationRequest& r) {
  if (!model.template_has_reasoning()) return false;
  auto it = r.template_kwargs.find("enable_thinking");
  return !(it != r.template_kwargs.end() && it->is_boolean() && !it->get<bool>());
}

Prompt chat_prompt(const ServedModel& model, const GenerationRequest& r) {
  const tokenizer::Tokenizer& tok = model.tokenizer();
  const chat::ToolFormat format = model.tool_format();
  tmpl::ChatInputs in =
      chat_checked([&] { return chat::chat_inputs(r.messages, r.tools, format); });
  const chat::ToolChoice choice =
      chat::tool_choice(r.tool_choice, r.tool_choice_name, !r.tools.empty());
  in.add_generation_prompt = true;
  if (tok.bos() >= 0) in.bos_token = tok.piece(tok.bos());
  if (tok.eos() >= 0) in.eos_token = tok.piece(tok.eos());
  for (const auto& [key, value] : r.template_kwargs.items()) in.extra[key] = value;
  std::string text;
  try {
    text = tmpl::render_chat(model.chat_template(), in);
  } catch (const tmpl::Error& e) {
    throw ApiError::invalid("messages",
                            std::string("the chat template refused the request: ") + e.what());
  }

  OutputSpec out;
  out.format = format;
  out.tool_names = chat::allowed_tool_names(choice, r.tool_names);
  out.parallel_tool_calls = r.parallel_tool_calls;
  out.reasoning = wants_reasoning(model, r);
  out.starts_in_reasoning = out.reasoning && chat::prompt_opens_reasoning(text);
  const chat::ForcedPrefix prefix = chat::forced_prefix(format, choice, out.starts_in_reasoning);
  if (!prefix.available)
    throw ApiError::invalid("tool_choice", "this 'tool_choice' is not supported for model '" +
                                               model.id() + "': its tool-call format (" +
                                               std::string(chat::to_string(format)) +
                                               ") cannot be forced");
  out.forced_prefix = prefix.text;
  text += prefix.text;
  return Prompt{tokenize_chat(tok, text), std::move(out)};
}

Prompt completion_prompt(const ServedModel& model, const GenerationRequest& r) {
  const tokenizer::Tokenizer& tok = model.tokenizer();
  Prompt p;
  if (r.prompt_tokens.empty()) {
    p.tokens = tok.encode(r.prompt_text, /*add_special=*/true, /*parse_special=*/true);
  } else {
    for (int32_t id : r.prompt_tokens)
      if (id >= tok.n_vocab())
        throw ApiError::invalid("prompt", "'prompt' token id " + std::to_string(id) +
                                              " is outside the vocabulary (0 to " +
                                              std::to_string(tok.n_vocab() - 1) + ")");
    p.tokens = r.prompt_tokens;
  }
  return p;
}

}  // namespace

Prompt build_prompt(const ServedModel& model, const GenerationRequest& request) {
  Prompt p = request.chat ? chat_prompt(model, request) : completion_prompt(model, request);
  if (p.tokens.empty()) throw ApiError::invalid(request.prompt_member(), "the prompt is empty");
  return p;
}

}  // namespace zen::serving
