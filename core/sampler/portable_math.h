// exp and log for sampling, bit-identical on every platform; exp vectorized.
//
// libm's expf differs by an ulp between C libraries and CPUs, and one ulp can move a draw from
// one token to the next: a fixed seed must give the same tokens everywhere. This exp uses only
// IEEE add/multiply (correctly rounded everywhere) and integer bit operations; the library is
// compiled with -ffp-contract=off so no FMA changes a rounding. Accuracy: about 2 ulp, plenty
// for probabilities (log is better than 1 ulp).
#pragma once

#include <cstddef>

namespace zen::sampling {

// exp(z) for z <= 0; z < -87 (including -inf and NaN) gives 0, below float's normal range.
float exp_nonpositive(float z);

// out[i] = exp((x[i] - shift) * scale) for n elements, x[i] <= shift (shift = their maximum,
// scale = 1 / temperature). -inf and NaN inputs give 0. out may alias x.
void exp_shifted(const float* x, float shift, float scale, float* out, size_t n);

// ln(x) for a positive, finite x (min_p's threshold in logit space).
float log_positive(float x);

}  // namespace zen::sampling
