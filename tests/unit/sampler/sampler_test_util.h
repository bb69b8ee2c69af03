// Helpers shared by the sampler tests.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <span>
#include <vector>

#include "sampler/sampler.h"

namespace zen::sampling::test {

inline constexpr float kInf = std::numeric_limits<float>::infinity();
inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Logits whose softmax is exactly the given (normalized) probabilities, up to float rounding.
inline std::vector<float> logits_for(const std::vector<double>& probs) {
  std::vector<float> logits;
  for (double p : probs) logits.push_back(static_cast<float>(std::log(p)));
  return logits;
}

// Every token the sampler draws from these logits in n draws (nothing accepted).
inline std::set<int32_t> drawn(Sampler& sampler, std::span<const float> logits, int n) {
  std::set<int32_t> tokens;
  for (int i = 0; i < n; ++i) tokens.insert(sampler.sample(logits));
  return tokens;
}

// Params for plain sampling at temperature 1 with a fixed seed.
inline Params seeded(uint64_t seed = 42) {
  Params p;
  p.seed = seed;
  return p;
}

}  // namespace zen::sampling::test
