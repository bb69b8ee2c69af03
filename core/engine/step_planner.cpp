#include "engine/step_planner.h"

#include <algorithm>

namespace zen::engine {
namespace {

// Generating (or, deterministic, replaying generated tokens after a preemption): one token.
bool decoding(const Sequence& s, bool deterministic) {
  return deterministic ? s.n_cached >= s.prompt_len : s.pending() == 1;
}

}  // namespace

uint32_t StepPlan::n_tokens() const {
  uint32_t n = 0;
  for (const Work& w : work) n += w.n;
  return n;
}

uint32_t aligned_chunk_end(uint32_t n_cached, uint32_t prompt_len, uint32_t chunk) {
  return std::min((n_cached / chunk + 1) * chunk, prompt_len);
}

StepPlan plan_step(std::span<Sequence* const> running, const model::KvCache& kv,
                   const StepLimits& limits) {
  StepPlan plan;
  const uint32_t available = kv.blocks_available();
  uint32_t blocks = 0;
  for (Sequence* s : running) {
    if (!decoding(*s, limits.deterministic)) continue;
    blocks += kv.blocks_needed(s->seq, 1);
    plan.work.push_back({s, 1});
  }
  if (blocks > available) {
    plan.short_of_blocks = true;
    return plan;
  }
  uint32_t budget =
      limits.max_batch_tokens - std::min<uint32_t>(limits.max_batch_tokens, plan.n_tokens());
  if (!plan.work.empty()) budget = std::min(budget, limits.prefill_while_decoding);
  bool oldest = true;
  for (Sequence* s : running) {
    if (decoding(*s, limits.deterministic)) continue;
    uint32_t n = 0;
    if (limits.deterministic) {
      n = aligned_chunk_end(s->n_cached, s->prompt_len, limits.prefill_chunk) - s->n_cached;
      // A chunk is never cut to fit the budget (that would make it depend on the others);
      // the oldest prompt goes anyway, so no prompt waits forever behind decode tokens.
      if (n > budget && !oldest) continue;
    } else {
      n = std::min({s->pending(), limits.prefill_chunk, budget});
      if (n == 0) break;
    }
    oldest = false;
    const uint32_t need = kv.blocks_needed(s->seq, n);
    if (blocks + need > available) continue;
    blocks += need;
    budget -= std::min(budget, n);
    plan.work.push_back({s, n});
  }
  if (plan.work.empty() && !running.empty()) plan.short_of_blocks = true;
  return plan;
}

}  // namespace zen::engine
