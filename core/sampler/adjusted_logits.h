// The model's logits as the filters see them: the raw row plus the few tokens whose value
// penalties or logit_bias changed (overrides), read in place instead of copying the row.
//
// Every scan visits tokens in ascending id order and treats NaN as -inf; a -inf token is never
// a candidate. These are the passes over the whole vocabulary, so they are the hot loops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sampler/candidate.h"

namespace zen::sampling {

struct Override {
  int32_t id;
  float logit;  // never NaN
};

struct AdjustedLogits {
  std::span<const float> raw;
  std::span<const Override> overrides;  // ascending id, unique, each id < raw.size()
};

struct Best {
  float logit;
  int32_t id;  // -1 when every value is -inf or NaN
};

// The highest value, lowest id among equals. One pass.
Best argmax(const AdjustedLogits& logits);

// The min(k, #finite) highest-ranked tokens (see ranks_before), in rank order, into out.
// One pass with a bounded heap: blocks whose maximum cannot enter the heap are skipped.
void select_top_k(const AdjustedLogits& logits, size_t k, std::vector<Candidate>& out);

// Every value into out (NaN as -inf); returns the maximum (-inf when nothing is finite).
float copy_dense(const AdjustedLogits& logits, std::vector<float>& out);

}  // namespace zen::sampling
