// One choice of a request as the scheduler tracks it: its tokens (prompt, then generated),
// how many of them have K/V in the cache, and its sampler.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sampler/sampler.h"

namespace zen::engine {

struct Job;

struct Sequence {
  enum class State { kWaiting, kRunning, kFinished };

  Job* job = nullptr;
  int choice = 0;
  State state = State::kWaiting;
  int32_t seq = -1;             // KV cache sequence id while running, else -1
  std::vector<int32_t> tokens;  // prompt + generated; the last one is not in the cache yet
  uint32_t prompt_len = 0;
  uint32_t n_cached = 0;     // tokens[0, n_cached) have K/V in the cache
  uint32_t n_published = 0;  // tokens[0, n_published) are in published (prefix-cache) blocks
  uint32_t generated = 0;    // tokens given to the sink
  uint64_t admitted_at = 0;  // admission order: preemption takes the latest
  std::unique_ptr<sampling::Sampler> sampler;  // made at first admission

  // Tokens still to run through the model before the next token can be sampled.
  uint32_t pending() const { return static_cast<uint32_t>(tokens.size()) - n_cached; }
};

}  // namespace zen::engine
