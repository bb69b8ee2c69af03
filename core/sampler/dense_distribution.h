// The chain's stages over the whole vocabulary, for when top_k does not bound the candidates
// (OpenAI requests have no top_k, so this is the server's common path).
//
// Nothing here sorts the vocabulary. Weights are one vectorized exp pass that also sums them.
// typical and top_p order tokens by a distance in nats (from the best token, or from the
// entropy); one pass builds a histogram of probability over that distance in 1/4-nat buckets,
// which tells the bucket where the cumulative probability crosses p; a second pass gathers
// the tokens up to it, and only that bucket's tokens are sorted. The kept set is exactly the
// one a full sort would give. The draw walks partial sums, then one short run of tokens.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "sampler/adjusted_logits.h"
#include "sampler/candidate.h"

namespace zen::sampling {

struct DenseDistribution {
  std::vector<float> logits;     // every token; -inf = not a candidate (never NaN or +inf)
  float max_logit = 0.0f;        // finite
  std::vector<float> weights;    // exp((logit - max_logit) * scale), 0 below the floor
  std::vector<double> run_sums;  // sums of the runs dense_draw walks
  double total = 0.0;
  std::vector<Candidate> edge;  // scratch for typical / top_p

  // Weights for softmax(logit * scale) over the tokens with logit >= floor, and their sums.
  void compute_weights(float scale, float floor = -std::numeric_limits<float>::infinity());
  // The same straight from the row and its overrides, without filling `logits`: all a plain
  // draw needs, one pass over the row fewer. max: the row's finite maximum.
  void compute_weights(const AdjustedLogits& source, float max, float scale, float floor);
  // Replaces +inf logits by 0 and every other by -inf (the +inf tokens share all the mass).
  void keep_infinite_only();
};

// typical / top_p over every token: the kept tokens into out, in a deterministic order (the
// stage's own order where the cut fell). Read weights computed with scale 1.
void dense_keep_typical(DenseDistribution& d, float p, size_t min_keep,
                        std::vector<Candidate>& out);
void dense_keep_top_p(DenseDistribution& d, float p, size_t min_keep, std::vector<Candidate>& out);

// min_p's floor, max + ln(p): tokens below it are dropped (pass it to compute_weights).
// nullopt when fewer than min_keep tokens reach it: the caller keeps the top min_keep instead.
std::optional<float> dense_min_p_floor(const DenseDistribution& d, float p, size_t min_keep);

// Draws by the current weights; u in [0, 1). Tokens are walked in a fixed order.
int32_t dense_draw(const DenseDistribution& d, double u);

}  // namespace zen::sampling
