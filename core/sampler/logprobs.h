// Log-probabilities as OpenAI's `logprobs` field reports them: log-softmax of the model's own
// logits (before penalties, logit_bias, filters and temperature) for the chosen token and the
// most likely alternatives.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sampler/candidate.h"

namespace zen::sampling {

struct TokenLogprob {
  int32_t token;
  float logprob;  // -inf for a token the model rules out (-inf or NaN logit)
};

struct Logprobs {
  TokenLogprob chosen;
  std::vector<TokenLogprob> top;  // the n_probs most likely, best first (ties: lower id)
};

// Scratch buffers kept between calls so a request does not reallocate per token.
struct LogprobsScratch {
  std::vector<float> weights;
  std::vector<Candidate> top;
};

// Throws Error when no logit is finite or +inf (there is no distribution to report).
Logprobs compute_logprobs(std::span<const float> logits, int32_t chosen, int32_t n_top,
                          LogprobsScratch& scratch);

}  // namespace zen::sampling
