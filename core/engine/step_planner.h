// Which tokens of which running sequences go into the next step (one batch): a decode token for
// every sequence that is generating, then prompt chunks, oldest admission first, within the
// step's token budget and the KV blocks obtainable now.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/sequence.h"
#include "model/kv_cache.h"

namespace zen::engine {

struct StepLimits {
  uint32_t prefill_chunk = 256;
  uint32_t max_batch_tokens = 512;
  uint32_t prefill_while_decoding = 64;  // prompt tokens in a step that also has decode tokens
  // Chunks are aligned to multiples of prefill_chunk and capped at the prompt's end, and tokens
  // past the prompt run one at a time, so how a sequence is cut depends on it alone.
  bool deterministic = false;
};

struct Work {
  Sequence* seq;
  uint32_t n;  // compute tokens[n_cached, n_cached + n)
  bool wants_logits() const { return seq->n_cached + n == seq->tokens.size(); }
};

struct StepPlan {
  std::vector<Work> work;  // decode tokens first, then prefill chunks
  // The running sequences' next tokens need more KV blocks than the cache can give: the
  // caller must preempt someone and plan again.
  bool short_of_blocks = false;
  uint32_t n_tokens() const;
};

// running: in admission order. Decode tokens are never dropped for a prompt chunk; prompt
// chunks fill max_batch_tokens, or at most prefill_while_decoding tokens when the step also
// decodes. A step that cannot give every generating sequence its token, or that would schedule
// nothing at all, is short_of_blocks.
StepPlan plan_step(std::span<Sequence* const> running, const model::KvCache& kv,
                   const StepLimits& limits);

// In deterministic mode, the first multiple of chunk above n_cached, capped at the prompt's
// end: the end of the chunk a sequence computes next.
uint32_t aligned_chunk_end(uint32_t n_cached, uint32_t prompt_len, uint32_t chunk);

}  // namespace zen::engine
