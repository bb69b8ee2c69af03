#include "sampler/sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "sampler/candidate_filters.h"
#include "sampler/error.h"
#include "sampler/portable_math.h"

namespace zen::sampling {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

uint64_t choose_seed(const Params& params) { return params.seed ? *params.seed : random_seed(); }

// 1 / temperature, finite even for a subnormal temperature (where the limit is greedy anyway).
float inverse_temperature(float temperature) {
  return std::min(1.0f / temperature, std::numeric_limits<float>::max());
}

[[noreturn]] void no_candidates() {
  throw Error(
      "sampling: no token can be drawn: every logit is -inf or NaN after logit_bias and "
      "penalties");
}

const Params& validated(const Params& params, int32_t n_vocab) {
  validate(params, n_vocab);
  return params;
}

}  // namespace

Sampler::Sampler(const Params& params, int32_t n_vocab)
    : params_(validated(params, n_vocab)),
      n_vocab_(n_vocab),
      seed_(choose_seed(params)),
      rng_(seed_),
      penalties_(params) {
  for (const auto& [id, bias] : params.logit_bias) bias_.push_back({id, bias});
}

void Sampler::check_token(int32_t token, const char* what) const {
  if (token < 0 || token >= n_vocab_) {
    throw Error(std::string("sampling: ") + what + " token id " + std::to_string(token) +
                " is outside the vocabulary [0, " + std::to_string(n_vocab_) + ")");
  }
}

void Sampler::accept(int32_t token) {
  check_token(token, "accepted");
  penalties_.accept(token);
}

void Sampler::add_prompt(std::span<const int32_t> tokens) {
  for (int32_t t : tokens) check_token(t, "prompt");
  penalties_.add_prompt(tokens);
}

void Sampler::reset() {
  penalties_.reset();
  rng_ = Rng(seed_);
  last_logprobs_.reset();
}

const Logprobs& Sampler::last_logprobs() const {
  if (!params_.logprobs && params_.n_probs == 0) {
    throw Error("sampling: logprobs were not requested (Params::logprobs or n_probs)");
  }
  if (!last_logprobs_) throw Error("sampling: no token has been sampled yet");
  return *last_logprobs_;
}

// logit_bias first, then the penalties (llama.cpp's order: its logit-bias sampler precedes
// the penalties sampler), on the few tokens either touches.
AdjustedLogits Sampler::adjust(std::span<const float> logits) {
  penalized_.clear();
  penalties_.penalized_tokens(penalized_);
  std::sort(penalized_.begin(), penalized_.end());
  overrides_.clear();
  size_t b = 0, p = 0;
  while (b < bias_.size() || p < penalized_.size()) {
    int32_t id;
    if (p == penalized_.size() || (b < bias_.size() && bias_[b].id < penalized_[p])) {
      id = bias_[b].id;
    } else {
      id = penalized_[p];
    }
    float v = logits[static_cast<size_t>(id)];
    if (std::isnan(v)) v = -kInf;
    if (b < bias_.size() && bias_[b].id == id) v += bias_[b++].bias;
    if (p < penalized_.size() && penalized_[p] == id) {
      v = penalties_.apply(id, v);
      ++p;
    }
    if (std::isnan(v)) v = -kInf;  // -inf + inf: the model ruled it out
    overrides_.push_back({id, v});
  }
  return {logits, overrides_};
}

int32_t Sampler::sample(std::span<const float> logits) {
  if (logits.size() != static_cast<size_t>(n_vocab_)) {
    throw Error("sampling: got " + std::to_string(logits.size()) + " logits for a vocabulary of " +
                std::to_string(n_vocab_));
  }
  const AdjustedLogits adjusted = adjust(logits);
  const auto min_keep = static_cast<size_t>(std::max(1, params_.min_keep));
  int32_t token;
  if (params_.temperature == 0.0f && params_.typical_p >= 1.0f) {
    // top_k, top_p and min_p always keep the argmax; typical may not, so it takes the chain.
    const Best best = argmax(adjusted);
    if (best.id < 0) no_candidates();
    token = best.id;
  } else if (params_.top_k > 0 && params_.top_k < n_vocab_) {
    token = sample_top_k(adjusted, min_keep);
  } else {
    token = sample_dense(adjusted, min_keep);
  }
  if (params_.logprobs || params_.n_probs > 0) {
    last_logprobs_ = compute_logprobs(logits, token, params_.n_probs, logprobs_scratch_);
  }
  return token;
}

int32_t Sampler::sample_top_k(const AdjustedLogits& logits, size_t min_keep) {
  select_top_k(logits, std::max(static_cast<size_t>(params_.top_k), min_keep), candidates_);
  if (candidates_.empty()) no_candidates();
  keep_infinite_if_any(candidates_);
  return finish_candidates(Stage::kTypical, min_keep);
}

int32_t Sampler::sample_dense(const AdjustedLogits& logits, size_t min_keep) {
  const float scale = inverse_temperature(params_.temperature);
  const bool needs_row = params_.typical_p < 1.0f || params_.top_p < 1.0f || min_keep > 1;
  if (!needs_row) {
    // Temperature and min_p alone: weights straight from the row (temperature > 0 here: 0
    // without typical took the greedy path).
    const float max = argmax(logits).logit;
    if (max == -kInf) no_candidates();
    if (max != kInf) {
      const float floor = params_.min_p > 0.0f ? max + log_positive(params_.min_p) : -kInf;
      dense_.compute_weights(logits, max, scale, floor);
      return dense_draw(dense_, rng_.uniform());
    }
  }
  const float max = copy_dense(logits, dense_.logits);
  if (max == -kInf) no_candidates();
  if (max == kInf) {
    dense_.keep_infinite_only();
  } else {
    dense_.max_logit = max;
  }
  if (params_.typical_p < 1.0f || params_.top_p < 1.0f) {
    // These need every token's probability; what they keep is a short list.
    dense_.compute_weights(1.0f);
    if (params_.typical_p < 1.0f) {
      dense_keep_typical(dense_, params_.typical_p, min_keep, candidates_);
      return finish_candidates(Stage::kTopP, min_keep);
    }
    dense_keep_top_p(dense_, params_.top_p, min_keep, candidates_);
    return finish_candidates(Stage::kMinP, min_keep);
  }
  float floor = -kInf;
  if (params_.min_p > 0.0f) {
    const std::optional<float> min_p_floor = dense_min_p_floor(dense_, params_.min_p, min_keep);
    if (!min_p_floor) {
      select_top_k({dense_.logits, {}}, min_keep, candidates_);
      return finish_candidates(Stage::kTemperature, min_keep);
    }
    floor = *min_p_floor;
  }
  dense_.compute_weights(scale, floor);
  return dense_draw(dense_, rng_.uniform());
}

int32_t Sampler::finish_candidates(Stage first, size_t min_keep) {
  if (first <= Stage::kTypical) keep_typical(candidates_, params_.typical_p, min_keep);
  if (first <= Stage::kTopP) keep_top_p(candidates_, params_.top_p, min_keep);
  if (first <= Stage::kMinP) keep_min_p(candidates_, params_.min_p, min_keep);
  if (params_.temperature == 0.0f) return best_candidate(candidates_);
  return draw_candidate(candidates_, inverse_temperature(params_.temperature), rng_.uniform());
}

}  // namespace zen::sampling
