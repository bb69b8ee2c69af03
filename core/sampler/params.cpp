#include "sampler/params.h"

#include <cmath>
#include <string>

#include "sampler/error.h"

namespace zen::sampling {
namespace {

[[noreturn]] void reject(const std::string& what, const std::string& got) {
  throw InvalidParams("sampling: " + what + ", got " + got);
}

std::string show(float v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return std::to_string(v);
}

void check_unit_interval(const char* name, float v) {
  if (!(v >= 0.0f && v <= 1.0f)) reject(std::string(name) + " must be in [0, 1]", show(v));
}

}  // namespace

void validate(const Params& p, int32_t n_vocab) {
  if (n_vocab <= 0) reject("n_vocab must be positive", std::to_string(n_vocab));
  if (!(std::isfinite(p.temperature) && p.temperature >= 0.0f)) {
    reject("temperature must be a finite number >= 0", show(p.temperature));
  }
  if (p.top_k < 0) reject("top_k must be >= 0 (0 = off)", std::to_string(p.top_k));
  check_unit_interval("top_p", p.top_p);
  check_unit_interval("min_p", p.min_p);
  check_unit_interval("typical_p", p.typical_p);
  if (!(std::isfinite(p.repeat_penalty) && p.repeat_penalty > 0.0f)) {
    reject("repeat_penalty must be a finite number > 0 (1 = off)", show(p.repeat_penalty));
  }
  if (p.repeat_last_n < -1) {
    reject("repeat_last_n must be >= -1 (-1 = all, 0 = off)", std::to_string(p.repeat_last_n));
  }
  if (!(p.frequency_penalty >= -2.0f && p.frequency_penalty <= 2.0f)) {
    reject("frequency_penalty must be in [-2, 2]", show(p.frequency_penalty));
  }
  if (!(p.presence_penalty >= -2.0f && p.presence_penalty <= 2.0f)) {
    reject("presence_penalty must be in [-2, 2]", show(p.presence_penalty));
  }
  for (const auto& [token, bias] : p.logit_bias) {
    if (token < 0 || token >= n_vocab) {
      reject("logit_bias token ids must be in [0, " + std::to_string(n_vocab) + ")",
             std::to_string(token));
    }
    if (std::isnan(bias)) {
      reject("logit_bias for token " + std::to_string(token) + " must be a number", "nan");
    }
  }
  if (p.n_probs < 0 || p.n_probs > kMaxNProbs) {
    reject("n_probs must be in [0, " + std::to_string(kMaxNProbs) + "]", std::to_string(p.n_probs));
  }
  if (p.min_keep < 0 || p.min_keep > n_vocab) {
    reject("min_keep must be in [0, n_vocab=" + std::to_string(n_vocab) + "]",
           std::to_string(p.min_keep));
  }
}

}  // namespace zen::sampling
