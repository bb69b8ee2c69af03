#include "openai_request.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <map>

#include "chat_messages.h"
#include "chat_tools.h"
#include "request_id.h"

namespace zen::frontend {
namespace {

constexpr int64_t kMaxTokensLimit = int64_t{1} << 30;
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

std::string at(const std::string& key, size_t i) { return key + "[" + std::to_string(i) + "]"; }

void read_stream(JsonFields& f, OpenAiRequest& out) {
  out.stream = f.boolean("stream").value_or(false);
  if (const Json* opts = f.get("stream_options")) {
    if (!out.stream)
      refuse("stream_options", "'stream_options' is only allowed when 'stream' is true");
    if (!opts->is_object()) refuse("stream_options", "'stream_options' must be an object");
    for (const auto& [k, v] : opts->items()) {
      if (k != "include_usage")
        refuse("stream_options", "'stream_options." + k + "' is not a known option");
      if (!v.is_boolean())
        refuse("stream_options", "'stream_options.include_usage' must be a boolean");
      out.include_usage = v.get<bool>();
    }
  }
}

void read_stop(const Json& stop, task::GenerateRequest& r) {
  if (stop.is_string()) {
    r.stops.push_back(stop.get<std::string>());
  } else if (stop.is_array() && stop.size() <= kMaxStopStrings) {
    for (size_t i = 0; i < stop.size(); ++i) {
      if (!stop[i].is_string()) refuse("stop", "'" + at("stop", i) + "' must be a string");
      r.stops.push_back(stop[i].get<std::string>());
    }
  } else {
    refuse("stop", "'stop' must be a string or an array of at most " +
                       std::to_string(kMaxStopStrings) + " strings");
  }
  for (const std::string& text : r.stops)
    if (text.empty()) refuse("stop", "'stop' strings must not be empty");
}

void read_logit_bias(const Json& bias, task::GenerateRequest& r) {
  if (!bias.is_object()) refuse("logit_bias", "'logit_bias' must be an object of token id: bias");
  std::map<int32_t, float> by_token;  // "1" and "01" are one token: the later value wins
  for (const auto& [key, value] : bias.items()) {
    int32_t id = -1;
    auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), id);
    if (ec != std::errc() || end != key.data() + key.size() || id < 0)
      refuse("logit_bias", "'logit_bias' keys must be token ids, got \"" + key + "\"");
    if (!value.is_number() || !(value.get<double>() >= -100 && value.get<double>() <= 100))
      refuse("logit_bias", "'logit_bias' values must be numbers between -100 and 100");
    by_token[id] = value.get<float>();
  }
  for (const auto& [token, b] : by_token) r.logit_bias.push_back(zen_logit_bias{token, b});
}

// "lora": [{"id": 0, "scale": 0.5}, {"name": "sql", "scale": 1}] (llama-server's form, plus
// names): exactly these adapters; the served model checks ids and names.
void read_lora(const Json& lora, task::GenerateRequest& r) {
  constexpr size_t kMaxPicks = 64;
  if (!lora.is_array() || lora.size() > kMaxPicks)
    refuse("lora", "'lora' must be an array of at most 64 {\"id\" or \"name\", \"scale\"}");
  r.lora.emplace();
  for (size_t i = 0; i < lora.size(); ++i) {
    const Json& e = lora[i];
    const std::string where = at("lora", i);
    if (!e.is_object()) refuse("lora", "'" + where + "' must be an object");
    task::GenerateRequest::LoraPick pick;
    for (const auto& [key, value] : e.items()) {
      if (key == "id" && value.is_number_integer() && value.get<int64_t>() >= 0 &&
          value.get<int64_t>() < 4096) {
        pick.id = value.get<int32_t>();
      } else if (key == "name" && value.is_string()) {
        pick.name = value.get<std::string>();
      } else if (key == "scale" && value.is_number() && std::fabs(value.get<double>()) <= 100) {
        pick.scale = value.get<float>();
      } else {
        refuse("lora", "'" + where + "." + key +
                           "' is not an id (0..4095), a name or a scale "
                           "(-100..100)");
      }
    }
    if ((pick.id < 0) == pick.name.empty())
      refuse("lora", "'" + where + "' needs exactly one of \"id\" and \"name\"");
    r.lora->push_back(std::move(pick));
  }
}

// Fields every generation request shares: model, streaming, sampling, stop, seed, n.
void read_common(JsonFields& f, OpenAiRequest& out) {
  task::GenerateRequest& r = out.request;
  if (auto v = f.string("model")) r.model = *v;
  read_stream(f, out);
  // Sampler fields the request leaves out take the model's own defaults (zen/task.h).
  r.sampling_given = 0;
  auto given = [&r](zen_sampling_field bit) { r.sampling_given |= bit; };
  if (auto v = f.number("temperature", 0, 2)) {
    r.temperature = static_cast<float>(*v);
    given(ZEN_SAMPLING_TEMPERATURE);
  }
  if (auto v = f.number("top_p", 0, 1)) {
    r.top_p = static_cast<float>(*v);
    given(ZEN_SAMPLING_TOP_P);
  }
  if (auto v = f.integer("n", 1, kMaxChoices)) r.n = static_cast<uint32_t>(*v);
  if (auto v = f.number("presence_penalty", -2, 2)) r.presence_penalty = static_cast<float>(*v);
  if (auto v = f.number("frequency_penalty", -2, 2)) r.frequency_penalty = static_cast<float>(*v);
  if (auto v = f.integer("seed", kInt64Min, kInt64Max)) r.seed = static_cast<uint64_t>(*v);
  if (const Json* stop = f.get("stop")) read_stop(*stop, r);
  if (const Json* bias = f.get("logit_bias")) read_logit_bias(*bias, r);
  if (const Json* lora = f.get("lora")) read_lora(*lora, r);
  // Extensions (llama.cpp / vLLM names).
  if (auto v = f.integer("top_k", -1, std::numeric_limits<int32_t>::max())) {
    r.top_k = static_cast<int32_t>(*v < 0 ? 0 : *v);  // vLLM's -1 means off, as 0 does here
    given(ZEN_SAMPLING_TOP_K);
  }
  if (auto v = f.number("min_p", 0, 1)) {
    r.min_p = static_cast<float>(*v);
    given(ZEN_SAMPLING_MIN_P);
  }
  if (auto v = f.number("typical_p", 0, 1)) r.typical_p = static_cast<float>(*v);
  if (const Json* v = f.get("repeat_penalty")) {
    if (!v->is_number() || !(v->get<double>() > 0 && v->get<double>() <= 100))
      refuse("repeat_penalty",
             "'repeat_penalty' must be a number above 0 and at most 100, got " + brief(*v));
    r.repeat_penalty = v->get<float>();
    given(ZEN_SAMPLING_REPEAT_PENALTY);
  }
  if (auto v = f.integer("repeat_last_n", -1, std::numeric_limits<int32_t>::max()))
    r.repeat_last_n = static_cast<int32_t>(*v);
  if (auto v = f.boolean("ignore_eos")) r.ignore_eos = *v;
  // Accepted and without effect here, as in OpenAI's API for a server that keeps nothing.
  f.string("user");
  f.ignore("store");
  f.ignore("metadata");
}

// Returns the messages, checked only once every other field is (as the engine did before).
const Json* read_chat(JsonFields& f, task::GenerateRequest& r) {
  const Json* messages = f.get("messages");
  if (!messages || !messages->is_array() || messages->empty())
    refuse("messages", "'messages' must be a non-empty array");
  if (const Json* t = f.get("tools")) r.tools = read_tools(*t);
  const Json* choice = f.get("tool_choice");
  const ToolChoice tc = read_tool_choice(choice ? *choice : Json(), r.tools);
  r.tool_choice = tc.kind;
  r.tool_choice_name = tc.name;
  if (auto v = f.boolean("parallel_tool_calls")) r.parallel_tool_calls = *v;
  auto max_tokens = f.integer("max_tokens", 1, kMaxTokensLimit);
  if (auto v = f.integer("max_completion_tokens", 1, kMaxTokensLimit)) max_tokens = v;
  if (max_tokens) r.max_tokens = static_cast<int32_t>(*max_tokens);
  if (auto v = f.boolean("logprobs")) r.logprobs = *v;
  if (auto v = f.integer("top_logprobs", 0, kMaxTopLogprobs)) {
    if (!r.logprobs) refuse("top_logprobs", "'top_logprobs' needs 'logprobs' set to true");
    r.top_logprobs = static_cast<uint32_t>(*v);
  }
  if (const Json* fmt = f.get("response_format")) {
    const std::string type = fmt->is_object() ? fmt->value("type", "") : "";
    if (type == "json_object" || type == "json_schema")
      refuse("response_format",
             "'response_format' type \"" + type +
                 "\" is not supported (constrained decoding is not implemented)");
    if (type != "text") refuse("response_format", "'response_format' must be {\"type\": \"text\"}");
  }
  if (const Json* kw = f.get("chat_template_kwargs")) {
    if (!kw->is_object())
      refuse("chat_template_kwargs", "'chat_template_kwargs' must be an object");
    r.template_vars = kw->dump(-1, ' ', false, Json::error_handler_t::replace);
  }
  return messages;
}

void read_prompt(const Json* prompt, task::GenerateRequest& r) {
  if (!prompt) refuse("prompt", "'prompt' is required");
  const Json* p = prompt;
  // A batch of one prompt is the prompt; real batches are separate requests here.
  if (p->is_array() && p->size() == 1 && ((*p)[0].is_string() || (*p)[0].is_array())) p = &(*p)[0];
  if (p->is_string()) {
    r.prompt = p->get<std::string>();
    return;
  }
  if (p->is_array() && !p->empty()) {
    for (const Json& id : *p) {
      if (!id.is_number_integer() || id.get<int64_t>() < 0 ||
          id.get<int64_t>() > std::numeric_limits<int32_t>::max())
        refuse("prompt",
               "'prompt' must be a string or an array of token ids (one prompt per request)");
      r.prompt_tokens.push_back(id.get<int32_t>());
    }
    return;
  }
  refuse("prompt", "'prompt' must be a string or a non-empty array of token ids");
}

void read_completion(JsonFields& f, task::GenerateRequest& r) {
  read_prompt(f.get("prompt"), r);
  r.max_tokens = 16;  // OpenAI's default for completions
  if (auto v = f.integer("max_tokens", 1, kMaxTokensLimit)) r.max_tokens = static_cast<int32_t>(*v);
  if (auto v = f.integer("logprobs", 0, kMaxTopLogprobs)) {  // given, even 0: the chosen token's
    r.logprobs = true;
    r.top_logprobs = static_cast<uint32_t>(*v);
  }
  if (auto echo = f.boolean("echo"); echo && *echo)
    refuse("echo", "'echo' is not supported (the prompt's logprobs are not computed)");
  if (auto suffix = f.string("suffix"); suffix && !suffix->empty())
    refuse("suffix", "'suffix' is not supported (no fill-in-the-middle)");
  if (auto best_of = f.integer("best_of", 1, kMaxChoices);
      best_of && *best_of != static_cast<int64_t>(r.n))
    refuse("best_of", "'best_of' must equal 'n' (choosing the best of several is not implemented)");
}

}  // namespace

OpenAiRequest parse_openai_request(Api api, const Json& body) {
  JsonFields f(body);
  OpenAiRequest out;
  task::GenerateRequest& r = out.request;
  read_common(f, out);  // before read_completion: best_of is checked against n
  const Json* messages = nullptr;
  if (api == Api::kChat) {
    r.mode = ZEN_GENERATE_CHAT;
    messages = read_chat(f, r);
  } else {
    r.mode = ZEN_GENERATE_TEXT;
    read_completion(f, r);
  }
  f.finish();
  if (messages) r.messages = read_messages(*messages);
  r.tag = new_request_id(api == Api::kChat ? "chatcmpl-" : "cmpl-");
  return out;
}

}  // namespace zen::frontend
