#include "sampler/candidate_filters.h"

#include <algorithm>
#include <limits>

#include "sampler/portable_math.h"

namespace zen::sampling {
namespace {

float max_logit(const std::vector<Candidate>& candidates) {
  float m = -std::numeric_limits<float>::infinity();
  for (const Candidate& c : candidates) m = std::max(m, c.logit);
  return m;
}

void sort_by_rank(std::vector<Candidate>& candidates) {
  if (!std::is_sorted(candidates.begin(), candidates.end(), ranks_before)) {
    std::sort(candidates.begin(), candidates.end(), ranks_before);
  }
}

// Keeps the shortest prefix whose weight passes target (strictly when `strict`) and that has
// at least min_keep tokens; all of them if none does.
void keep_prefix(std::vector<Candidate>& candidates, double target, bool strict, size_t min_keep) {
  double cum = 0.0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    cum += candidates[i].weight;
    const bool reached = strict ? cum > target : cum >= target;
    if (reached && i + 1 >= min_keep) {
      candidates.resize(i + 1);
      return;
    }
  }
}

}  // namespace

double set_weights(std::vector<Candidate>& candidates, float scale) {
  const float m = max_logit(candidates);
  double total = 0.0;
  for (Candidate& c : candidates) {
    c.weight = exp_nonpositive((c.logit - m) * scale);
    total += c.weight;
  }
  return total;
}

void keep_typical(std::vector<Candidate>& candidates, float p, size_t min_keep) {
  if (p >= 1.0f || candidates.empty()) return;
  const double total = set_weights(candidates, 1.0f);
  const float m = max_logit(candidates);
  double weighted_d = 0.0;
  for (const Candidate& c : candidates) {
    if (c.weight > 0.0f) weighted_d += static_cast<double>(c.weight) * (c.logit - m);
  }
  const auto mean_d = static_cast<float>(weighted_d / total);
  auto closer = [&](const Candidate& a, const Candidate& b) {
    const float da = typical_distance(a.logit, m, mean_d);
    const float db = typical_distance(b.logit, m, mean_d);
    return da < db || (da == db && a.id < b.id);
  };
  std::sort(candidates.begin(), candidates.end(), closer);
  keep_prefix(candidates, static_cast<double>(p) * total, /*strict=*/true, min_keep);
}

void keep_top_p(std::vector<Candidate>& candidates, float p, size_t min_keep) {
  if (p >= 1.0f || candidates.empty()) return;
  sort_by_rank(candidates);
  const double total = set_weights(candidates, 1.0f);
  keep_prefix(candidates, static_cast<double>(p) * total, /*strict=*/false, min_keep);
}

void keep_min_p(std::vector<Candidate>& candidates, float p, size_t min_keep) {
  if (p <= 0.0f || candidates.empty()) return;
  // p_i >= p * p_max  <=>  logit_i >= max logit + ln p
  const float threshold = max_logit(candidates) + log_positive(p);
  auto below = [&](const Candidate& c) { return !(c.logit >= threshold); };
  const auto kept = candidates.size() -
                    static_cast<size_t>(std::count_if(candidates.begin(), candidates.end(), below));
  if (kept >= min_keep) {
    std::erase_if(candidates, below);
    return;
  }
  sort_by_rank(candidates);
  candidates.resize(std::min(min_keep, candidates.size()));
}

void keep_infinite_if_any(std::vector<Candidate>& candidates) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  if (max_logit(candidates) != kInf) return;
  std::erase_if(candidates, [](const Candidate& c) { return c.logit != kInf; });
  for (Candidate& c : candidates) c.logit = 0.0f;
}

int32_t best_candidate(const std::vector<Candidate>& candidates) {
  return std::min_element(candidates.begin(), candidates.end(), ranks_before)->id;
}

int32_t draw_candidate(std::vector<Candidate>& candidates, float scale, double u) {
  const double target = u * set_weights(candidates, scale);
  double cum = 0.0;
  for (const Candidate& c : candidates) {
    cum += c.weight;
    if (cum > target) return c.id;
  }
  // Rounding left target at the very end: the last token that has any weight.
  for (auto it = candidates.rbegin(); it != candidates.rend(); ++it) {
    if (it->weight > 0.0f) return it->id;
  }
  return candidates.front().id;
}

}  // namespace zen::sampling
