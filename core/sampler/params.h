// What a request asks of the sampler, with llama.cpp's and OpenAI's meanings (docs/SAMPLING.md).
//
// A default-constructed Params samples from the model's own distribution: temperature 1 and
// every filter and penalty off. The server picks its defaults; this struct is neutral.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

#include "sampler/error.h"

namespace zen::sampling {

// Upper bound on Params::n_probs: alternatives are found with a bounded heap, so the cost grows
// with n; OpenAI itself caps top_logprobs at 20.
inline constexpr int32_t kMaxNProbs = 1024;

struct Params {
  float temperature = 1.0f;     // 0 = greedy (argmax); logits are divided by it before the draw
  int32_t top_k = 0;            // keep the k most likely tokens; 0 (or >= n_vocab) = off
  float top_p = 1.0f;           // nucleus: smallest set whose probability reaches top_p; 1 = off
  float min_p = 0.0f;           // drop tokens less likely than min_p * (top probability); 0 = off
  float typical_p = 1.0f;       // locally typical sampling; 1 = off
  float repeat_penalty = 1.0f;  // llama.cpp: divide positive, multiply negative logits; 1 = off
  int32_t repeat_last_n = 64;   // window of recent tokens it looks at; 0 = off, -1 = all
  float frequency_penalty = 0.0f;       // OpenAI: minus count * this, over generated tokens
  float presence_penalty = 0.0f;        // OpenAI: minus this once a token was generated
  std::map<int32_t, float> logit_bias;  // token -> added to its logit; -inf bans it
  std::optional<uint64_t> seed;         // unset = drawn from std::random_device
  bool logprobs = false;                // report the chosen token's log-probability
  int32_t n_probs = 0;                  // and this many most likely alternatives (implies logprobs)
  int32_t min_keep = 0;  // top_k/typical/top_p/min_p keep at least this many (at least 1)
};

// Throws InvalidParams naming the first field out of range (see the ranges in SAMPLING.md).
void validate(const Params& params, int32_t n_vocab);

}  // namespace zen::sampling
