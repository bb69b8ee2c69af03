// What an Engine reports about itself (Prometheus' view of a server, docs/ENGINE.md), and the
// thread-safe recorder the engine thread feeds while metrics() reads it from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "model/kv_cache.h"

namespace zen::engine {

struct Metrics {
  uint32_t queued = 0, running = 0;  // requests waiting; sequences admitted
  model::KvCache::Stats kv{};
  uint64_t requests_total = 0, prompt_tokens_total = 0, generated_tokens_total = 0;
  double generated_tokens_per_second = 0;    // over the last ~10 s
  std::vector<double> ttft_bucket_bounds;    // seconds (Prometheus le=)
  std::vector<uint64_t> ttft_bucket_counts;  // cumulative, same length; +Inf is ttft_count
  uint64_t ttft_count = 0;                   // requests that produced a first token
  double ttft_sum = 0;                       // seconds
};

class MetricsRecorder {
 public:
  using Clock = std::chrono::steady_clock;
  // Time-to-first-token histogram bounds in seconds, and the tokens/s window.
  static const std::vector<double>& ttft_bounds();
  static constexpr double kRateWindowSeconds = 10.0;

  MetricsRecorder();

  void request_accepted(uint32_t prompt_tokens);
  void first_token(double seconds_since_submit);
  void tokens_generated(uint32_t n, Clock::time_point when);
  // Gauges, set by the engine thread after each step.
  void set_state(uint32_t queued, uint32_t running, const model::KvCache::Stats& kv);

  Metrics snapshot(Clock::time_point now = Clock::now()) const;

 private:
  struct Tick {
    Clock::time_point when;
    uint32_t tokens;
  };
  void drop_old(Clock::time_point now) const;

  mutable std::mutex mu_;
  Metrics m_;
  std::vector<uint64_t> ttft_buckets_;  // per bucket, not cumulative
  mutable std::deque<Tick> recent_;     // steps of the last window
  mutable uint64_t recent_tokens_ = 0;
  Clock::time_point started_;
};

}  // namespace zen::engine
