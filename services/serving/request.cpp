#include "request.h"

#include <algorithm>

#include "api_error.h"

namespace zen::serving {

GenerationRequest generation_request(task::GenerateRequest t) {
  GenerationRequest r;
  r.chat = t.mode == ZEN_GENERATE_CHAT;
  if (!r.chat && t.mode != ZEN_GENERATE_TEXT)
    throw ApiError::invalid("mode", "'mode' " + std::to_string(t.mode) + " is not a generate mode");
  r.model = std::move(t.model);
  r.tag = std::move(t.tag);
  if (t.n < 1 || t.n > kMaxChoices)
    throw ApiError::invalid("n", "'n' must be between 1 and " + std::to_string(kMaxChoices));
  r.n = static_cast<int32_t>(t.n);
  if (t.max_tokens == 0 || t.max_tokens < -1)
    throw ApiError::invalid("max_tokens", "'max_tokens' must be at least 1 (or -1: no limit)");
  r.max_tokens = t.max_tokens;
  if (t.stops.size() > kMaxStopStrings)
    throw ApiError::invalid("stop", "at most " + std::to_string(kMaxStopStrings) + " stop strings");
  for (const std::string& s : t.stops)
    if (s.empty()) throw ApiError::invalid("stop", "'stop' strings must not be empty");
  r.stop = std::move(t.stops);
  r.ignore_eos = t.ignore_eos;
  r.lora = std::move(t.lora);

  sampling::Params& s = r.sampling;
  s.temperature = t.temperature;
  s.top_p = t.top_p;
  s.min_p = t.min_p;
  s.typical_p = t.typical_p;
  s.top_k = t.top_k;
  s.repeat_penalty = t.repeat_penalty;
  s.repeat_last_n = t.repeat_last_n;
  s.frequency_penalty = t.frequency_penalty;
  s.presence_penalty = t.presence_penalty;
  for (const zen_logit_bias& b : t.logit_bias) s.logit_bias[b.token] = b.bias;
  s.seed = t.seed;
  r.sampling_given = t.sampling_given;
  s.logprobs = t.logprobs || t.top_logprobs > 0;
  s.n_probs = static_cast<int32_t>(std::min<uint32_t>(t.top_logprobs, sampling::kMaxNProbs + 1));

  if (r.chat) {
    r.messages = std::move(t.messages);
    r.tools = std::move(t.tools);
    for (const task::Tool& tool : r.tools) r.tool_names.push_back(tool.name);
    r.tool_choice = t.tool_choice;
    r.tool_choice_name = std::move(t.tool_choice_name);
    r.parallel_tool_calls = t.parallel_tool_calls;
    if (!t.template_vars.empty()) {
      r.template_kwargs = Json::parse(t.template_vars, nullptr, /*allow_exceptions=*/false);
      if (!r.template_kwargs.is_object())
        throw ApiError::invalid("template_vars", "'template_vars' must be a JSON object");
    }
  } else {
    r.prompt_text = std::move(t.prompt);
    r.prompt_tokens = std::move(t.prompt_tokens);
  }
  return r;
}

}  // namespace zen::serving
