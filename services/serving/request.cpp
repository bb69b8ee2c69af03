#include "request.h"

#include <charconv>
#include <limits>

#include "chat_checked.h"
#include "json_fields.h"

namespace zen::serving {
namespace {

constexpr int64_t kMaxTokensLimit = int64_t{1} << 30;
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

std::string at(const std::string& key, size_t i) { return key + "[" + std::to_string(i) + "]"; }

[[noreturn]] void bad(const std::string& param, const std::string& message) {
  throw ApiError::invalid(param, message);
}

// Fields every generation request shares: sampling, stop, seed, n, streaming (checked here;
// the frontend reads stream and stream_options itself).
void read_common(JsonFields& f, GenerationRequest& r) {
  sampling::Params& s = r.sampling;
  if (auto v = f.string("model")) r.model = *v;
  const bool stream = f.boolean("stream").value_or(false);
  if (const Json* opts = f.get("stream_options")) {
    if (!stream) bad("stream_options", "'stream_options' is only allowed when 'stream' is true");
    if (!opts->is_object()) bad("stream_options", "'stream_options' must be an object");
    for (const auto& [k, v] : opts->items()) {
      if (k != "include_usage")
        bad("stream_options", "'stream_options." + k + "' is not a known option");
      if (!v.is_boolean())
        bad("stream_options", "'stream_options.include_usage' must be a boolean");
    }
  }
  if (auto v = f.number("temperature", 0, 2)) s.temperature = static_cast<float>(*v);
  if (auto v = f.number("top_p", 0, 1)) s.top_p = static_cast<float>(*v);
  if (auto v = f.integer("n", 1, kMaxChoices)) r.n = static_cast<int32_t>(*v);
  if (auto v = f.number("presence_penalty", -2, 2)) s.presence_penalty = static_cast<float>(*v);
  if (auto v = f.number("frequency_penalty", -2, 2)) s.frequency_penalty = static_cast<float>(*v);
  if (auto v = f.integer("seed", kInt64Min, kInt64Max)) s.seed = static_cast<uint64_t>(*v);
  if (const Json* stop = f.get("stop")) {
    if (stop->is_string()) {
      r.stop.push_back(stop->get<std::string>());
    } else if (stop->is_array() && stop->size() <= kMaxStopStrings) {
      for (size_t i = 0; i < stop->size(); ++i) {
        if (!(*stop)[i].is_string()) bad("stop", "'" + at("stop", i) + "' must be a string");
        r.stop.push_back((*stop)[i].get<std::string>());
      }
    } else {
      bad("stop", "'stop' must be a string or an array of at most " +
                      std::to_string(kMaxStopStrings) + " strings");
    }
    for (const std::string& text : r.stop)
      if (text.empty()) bad("stop", "'stop' strings must not be empty");
  }
  if (const Json* bias = f.get("logit_bias")) {
    if (!bias->is_object()) bad("logit_bias", "'logit_bias' must be an object of token id: bias");
    for (const auto& [key, value] : bias->items()) {
      int32_t id = -1;
      auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), id);
      if (ec != std::errc() || end != key.data() + key.size() || id < 0)
        bad("logit_bias", "'logit_bias' keys must be token ids, got \"" + key + "\"");
      if (!value.is_number() || !(value.get<double>() >= -100 && value.get<double>() <= 100))
        bad("logit_bias", "'logit_bias' values must be numbers between -100 and 100");
      s.logit_bias[id] = value.get<float>();
    }
  }
  // Extensions (llama.cpp / vLLM names).
  if (auto v = f.integer("top_k", -1, std::numeric_limits<int32_t>::max()))
    s.top_k = static_cast<int32_t>(*v < 0 ? 0 : *v);  // vLLM's -1 means off, as 0 does here
  if (auto v = f.number("min_p", 0, 1)) s.min_p = static_cast<float>(*v);
  if (auto v = f.number("typical_p", 0, 1)) s.typical_p = static_cast<float>(*v);
  if (const Json* v = f.get("repeat_penalty")) {
    if (!v->is_number() || !(v->get<double>() > 0 && v->get<double>() <= 100))
      bad("repeat_penalty",
          "'repeat_penalty' must be a number above 0 and at most 100, got " + brief(*v));
    s.repeat_penalty = v->get<float>();
  }
  if (auto v = f.integer("repeat_last_n", -1, std::numeric_limits<int32_t>::max()))
    s.repeat_last_n = static_cast<int32_t>(*v);
  if (auto v = f.boolean("ignore_eos")) r.ignore_eos = *v;
  // Accepted and without effect here, as in OpenAI's API for a server that keeps nothing.
  f.string("user");
  f.ignore("store");
  f.ignore("metadata");
}

void read_chat(JsonFields& f, GenerationRequest& r) {
  const Json* messages = f.get("messages");
  if (!messages || !messages->is_array() || messages->empty())
    bad("messages", "'messages' must be a non-empty array");
  r.messages = *messages;
  if (const Json* t = f.get("tools")) r.tools = *t;
  r.tool_names = chat_checked([&] { return chat::tool_names(r.tools); });
  const Json* choice = f.get("tool_choice");
  r.tool_choice = chat_checked(
      [&] { return chat::parse_tool_choice(choice ? *choice : Json(), r.tool_names); });
  if (auto v = f.boolean("parallel_tool_calls")) r.parallel_tool_calls = *v;
  auto max_tokens = f.integer("max_tokens", 1, kMaxTokensLimit);
  if (auto v = f.integer("max_completion_tokens", 1, kMaxTokensLimit)) max_tokens = v;
  if (max_tokens) r.max_tokens = static_cast<int32_t>(*max_tokens);
  if (auto v = f.boolean("logprobs")) r.sampling.logprobs = *v;
  if (auto v = f.integer("top_logprobs", 0, kMaxTopLogprobs)) {
    if (!r.sampling.logprobs) bad("top_logprobs", "'top_logprobs' needs 'logprobs' set to true");
    r.sampling.n_probs = static_cast<int32_t>(*v);
  }
  if (const Json* fmt = f.get("response_format")) {
    const std::string type = fmt->is_object() ? fmt->value("type", "") : "";
    if (type == "json_object" || type == "json_schema")
      bad("response_format", "'response_format' type \"" + type +
                                 "\" is not supported (constrained decoding is not implemented)");
    if (type != "text") bad("response_format", "'response_format' must be {\"type\": \"text\"}");
  }
  if (const Json* kw = f.get("chat_template_kwargs")) {
    if (!kw->is_object()) bad("chat_template_kwargs", "'chat_template_kwargs' must be an object");
    r.template_kwargs = *kw;
  }
}

void read_prompt(const Json* prompt, GenerationRequest& r) {
  if (!prompt) bad("prompt", "'prompt' is required");
  const Json* p = prompt;
  // A batch of one prompt is the prompt; real batches are separate requests here.
  if (p->is_array() && p->size() == 1 && ((*p)[0].is_string() || (*p)[0].is_array())) p = &(*p)[0];
  if (p->is_string()) {
    r.prompt_text = p->get<std::string>();
    return;
  }
  if (p->is_array() && !p->empty()) {
    for (const Json& id : *p) {
      if (!id.is_number_integer() || id.get<int64_t>() < 0 ||
          id.get<int64_t>() > std::numeric_limits<int32_t>::max())
        bad("prompt",
            "'prompt' must be a string or an array of token ids (one prompt per request)");
      r.prompt_tokens.push_back(id.get<int32_t>());
    }
    return;
  }
  bad("prompt", "'prompt' must be a string or a non-empty array of token ids");
}

void read_completion(JsonFields& f, GenerationRequest& r) {
  read_prompt(f.get("prompt"), r);
  r.max_tokens = 16;  // OpenAI's default for completions
  if (auto v = f.integer("max_tokens", 1, kMaxTokensLimit)) r.max_tokens = static_cast<int32_t>(*v);
  if (auto v = f.integer("logprobs", 0, kMaxTopLogprobs)) {  // given, even 0: the chosen token's
    r.sampling.logprobs = true;
    r.sampling.n_probs = static_cast<int32_t>(*v);
  }
  if (auto echo = f.boolean("echo"); echo && *echo)
    bad("echo", "'echo' is not supported (the prompt's logprobs are not computed)");
  if (auto suffix = f.string("suffix"); suffix && !suffix->empty())
    bad("suffix", "'suffix' is not supported (no fill-in-the-middle)");
  if (auto best_of = f.integer("best_of", 1, kMaxChoices); best_of && *best_of != r.n)
    bad("best_of", "'best_of' must equal 'n' (choosing the best of several is not implemented)");
}

}  // namespace

GenerationRequest parse_generation_request(const Json& body) {
  JsonFields f(body);
  GenerationRequest r;
  const auto endpoint = f.string("endpoint");
  if (endpoint == "chat")
    r.endpoint = Endpoint::kChat;
  else if (endpoint == "completion")
    r.endpoint = Endpoint::kCompletion;
  else
    bad("endpoint", "'endpoint' must be \"chat\", \"completion\", \"tokenize\" or \"detokenize\"");
  read_common(f, r);  // before read_completion: best_of is checked against n
  if (r.endpoint == Endpoint::kChat)
    read_chat(f, r);
  else
    read_completion(f, r);
  f.finish();
  return r;
}

}  // namespace zen::serving
