// A token still in the running, and the order every stage ranks tokens by.
#pragma once

#include <cstdint>

namespace zen::sampling {

struct Candidate {
  float logit;  // after penalties and logit_bias (finite, or +inf normalized away)
  int32_t id;
  float weight;  // exp((logit - max) * scale): set by the stage that needs it
};

// Higher logit first, then lower id. A strict total order: every sort or selection under it
// gives the same result with any standard library, which keeps a seeded run reproducible.
inline bool ranks_before(const Candidate& a, const Candidate& b) {
  return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
}

}  // namespace zen::sampling
