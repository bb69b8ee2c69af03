#include "sampler/logprobs.h"

#include <cmath>
#include <limits>

#include "sampler/adjusted_logits.h"
#include "sampler/error.h"
#include "sampler/portable_math.h"

namespace zen::sampling {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// Four running sums: one would wait on each add's latency.
double sum_of(const std::vector<float>& w) {
  double s[4] = {0.0, 0.0, 0.0, 0.0};
  size_t i = 0;
  for (; i + 4 <= w.size(); i += 4) {
    for (int lane = 0; lane < 4; ++lane) s[lane] += w[i + lane];
  }
  for (; i < w.size(); ++i) s[0] += w[i];
  return (s[0] + s[1]) + (s[2] + s[3]);
}

}  // namespace

Logprobs compute_logprobs(std::span<const float> logits, int32_t chosen, int32_t n_top,
                          LogprobsScratch& scratch) {
  const AdjustedLogits raw{logits, {}};
  const float max = argmax(raw).logit;
  if (max == -kInf) throw Error("sampling: no logprobs: every logit is -inf or NaN");

  // log p(token) = logit - max - log(sum exp(logit - max)). With +inf logits the tokens at
  // +inf share the probability equally.
  double log_norm = 0.0;
  if (max == kInf) {
    size_t at_inf = 0;
    for (float l : logits) at_inf += l == kInf;
    log_norm = std::log(static_cast<double>(at_inf));
  } else {
    scratch.weights.resize(logits.size());
    exp_shifted(logits.data(), max, 1.0f, scratch.weights.data(), logits.size());
    log_norm = std::log(sum_of(scratch.weights));
  }
  auto logprob = [&](float logit) -> float {
    if (!(logit > -kInf)) return -kInf;  // -inf and NaN
    if (max == kInf) return logit == kInf ? static_cast<float>(-log_norm) : -kInf;
    return static_cast<float>(static_cast<double>(logit) - max - log_norm);
  };

  Logprobs out;
  out.chosen = {chosen, logprob(logits[static_cast<size_t>(chosen)])};
  if (n_top > 0) {
    select_top_k(raw, static_cast<size_t>(n_top), scratch.top);
    out.top.reserve(scratch.top.size());
    for (const Candidate& c : scratch.top) out.top.push_back({c.id, logprob(c.logit)});
  }
  return out;
}

}  // namespace zen::sampling
