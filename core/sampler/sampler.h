// zen::sampling::Sampler: picks each next token from a row of logits (docs/SAMPLING.md).
//
// The chain, in llama.cpp's default order:
//   logit_bias -> penalties -> top_k -> typical -> top_p -> min_p -> temperature -> draw
// Temperature 0 is greedy (argmax, ties to the lowest id) in one pass over the row.
// A fixed seed gives the same tokens for the same logits on every platform.
//
// One Sampler per sequence; not thread-safe. Feed the prompt with add_prompt (repeat_penalty
// looks at it) and every kept token with accept.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "sampler/adjusted_logits.h"
#include "sampler/candidate.h"
#include "sampler/dense_distribution.h"
#include "sampler/error.h"
#include "sampler/logprobs.h"
#include "sampler/params.h"
#include "sampler/penalties.h"
#include "sampler/rng.h"

namespace zen::sampling {

class Sampler {
 public:
  // Throws InvalidParams when a parameter is out of range.
  Sampler(const Params& params, int32_t n_vocab);

  // The next token for one row of n_vocab logits. Does not record it: call accept().
  // Throws Error when the row has the wrong size or no token can be drawn (every logit -inf
  // or NaN after logit_bias and penalties).
  int32_t sample(std::span<const float> logits);

  // Records a generated token (penalties' history). Throws Error on an id outside the vocab.
  void accept(int32_t token);
  // Records prompt tokens: they count for repeat_penalty, not for frequency/presence.
  void add_prompt(std::span<const int32_t> tokens);
  // Back to the state just after construction: empty history, the random stream restarted
  // from the same seed.
  void reset();

  // The log-probabilities of the last sample(). Throws Error when Params asked for none
  // (logprobs false and n_probs 0) or nothing was sampled yet.
  const Logprobs& last_logprobs() const;
  // The same without the checks: nullptr when none were asked for or nothing was sampled.
  const Logprobs* logprobs() const { return last_logprobs_ ? &*last_logprobs_ : nullptr; }

  uint64_t seed() const { return seed_; }  // the one drawn when Params left it unset
  const Params& params() const { return params_; }
  int32_t n_vocab() const { return n_vocab_; }

 private:
  void check_token(int32_t token, const char* what) const;
  AdjustedLogits adjust(std::span<const float> logits);
  int32_t sample_top_k(const AdjustedLogits& logits, size_t min_keep);
  int32_t sample_dense(const AdjustedLogits& logits, size_t min_keep);
  // The stages from `first` on, applied to candidates_, then temperature and the draw.
  enum class Stage { kTypical, kTopP, kMinP, kTemperature };
  int32_t finish_candidates(Stage first, size_t min_keep);

  Params params_;
  int32_t n_vocab_;
  uint64_t seed_;
  Rng rng_;
  Penalties penalties_;
  struct TokenBias {
    int32_t id;
    float bias;
  };
  std::vector<TokenBias> bias_;  // Params::logit_bias, ascending id
  std::optional<Logprobs> last_logprobs_;

  // Per-call buffers, kept to avoid reallocating every token.
  std::vector<int32_t> penalized_;
  std::vector<Override> overrides_;
  std::vector<Candidate> candidates_;
  DenseDistribution dense_;
  LogprobsScratch logprobs_scratch_;
};

}  // namespace zen::sampling
