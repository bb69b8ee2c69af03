// Perplexity as llama.cpp's perplexity tool measures it, so the figures compare: the tokens in
// chunks of n_ctx, each evaluated from an empty cache (its first token replaced by BOS when
// the model adds one), the negative log-likelihood taken over the second half of every chunk.
//
// The logits file (`zen-engine perplexity --logits-out`), for comparison with another engine:
//   "ZENLGT01" | u32 n_vocab | u32 n_ctx | u32 n_chunks |
//   per chunk: i32 tokens[n_ctx], f32 logits[n_ctx][n_vocab]   (little-endian)
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <vector>

#include "model/context.h"

namespace zen::model {

struct PerplexityOptions {
  size_t n_ctx = 512;              // tokens per chunk (the context must hold them)
  size_t n_chunks = 0;             // chunks to evaluate (<= tokens / n_ctx)
  int32_t bos = -1;                // the first token of every chunk, when >= 0
  uint32_t n_vocab = 0;            // for the logits file's header
  std::ostream* logits = nullptr;  // the logits file, when set
};

struct Perplexity {
  double value = 0, error = 0;  // exp(mean NLL), and its standard error
  size_t positions = 0;         // scored
};

// Calls on_chunk(chunks done, perplexity so far) after each chunk.
Perplexity perplexity(Context& ctx, const std::vector<int32_t>& ids, const PerplexityOptions& o,
                      const std::function<void(size_t, double)>& on_chunk = {});

}  // namespace zen::model
