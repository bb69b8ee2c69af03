// The chain's stages on an explicit candidate list: what remains after top_k, or after a stage
// over the whole vocabulary (dense_distribution.h) cut it down. Each stage renormalizes over
// the candidates it is given, as llama.cpp's samplers do.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sampler/candidate.h"

namespace zen::sampling {

// weight = exp((logit - max logit) * scale); returns their sum (in list order).
double set_weights(std::vector<Candidate>& candidates, float scale);

// |(-log p) - entropy| for a token: with d = logit - max logit it is |d - E_p[d]| (the
// entropy and the log-normalizer cancel). The distance typical sampling orders tokens by.
// F is float or a 4-lane float vector: the same operations, so the same bits.
template <class F>
F typical_distance(F logit, float max_logit, float mean_d) {
  const F diff = (logit - max_logit) - mean_d;
  return diff < 0.0f ? -diff : diff;
}

// Typical: tokens by typical_distance ascending until their probability exceeds p.
void keep_typical(std::vector<Candidate>& candidates, float p, size_t min_keep);
// Nucleus: tokens by rank until their probability reaches p. Leaves them in rank order.
void keep_top_p(std::vector<Candidate>& candidates, float p, size_t min_keep);
// Tokens whose probability is at least p times the top one's (logit >= max + ln p, as
// llama.cpp compares). Keeps the list's order.
void keep_min_p(std::vector<Candidate>& candidates, float p, size_t min_keep);

// A list that holds +inf logits keeps only those, at logit 0: they share all the probability.
void keep_infinite_if_any(std::vector<Candidate>& candidates);

// The best-ranked candidate (temperature 0).
int32_t best_candidate(const std::vector<Candidate>& candidates);
// Draws with probabilities softmax(logit * scale), walking the list in order; u in [0, 1).
int32_t draw_candidate(std::vector<Candidate>& candidates, float scale, double u);

}  // namespace zen::sampling
