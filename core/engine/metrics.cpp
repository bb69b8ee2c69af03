#include "engine/metrics.h"

#include <algorithm>

namespace zen::engine {

const std::vector<double>& MetricsRecorder::ttft_bounds() {
  static const std::vector<double> bounds{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
  return bounds;
}

MetricsRecorder::MetricsRecorder()
    : ttft_buckets_(ttft_bounds().size(), 0), started_(Clock::now()) {}

void MetricsRecorder::request_accepted(uint32_t prompt_tokens) {
  std::lock_guard lock(mu_);
  ++m_.requests_total;
  m_.prompt_tokens_total += prompt_tokens;
}

void MetricsRecorder::first_token(double seconds) {
  std::lock_guard lock(mu_);
  const std::vector<double>& b = ttft_bounds();
  // Prometheus buckets are "less than or equal": the first bound >= seconds.
  auto it = std::lower_bound(b.begin(), b.end(), seconds);
  if (it != b.end()) ++ttft_buckets_[static_cast<size_t>(it - b.begin())];
  ++m_.ttft_count;
  m_.ttft_sum += seconds;
}

void MetricsRecorder::tokens_generated(uint32_t n, Clock::time_point when) {
  if (n == 0) return;
  std::lock_guard lock(mu_);
  m_.generated_tokens_total += n;
  recent_.push_back({when, n});
  recent_tokens_ += n;
  drop_old(when);
}

void MetricsRecorder::set_state(uint32_t queued, uint32_t running,
                                const model::KvCache::Stats& kv) {
  std::lock_guard lock(mu_);
  m_.queued = queued;
  m_.running = running;
  m_.kv = kv;
}

void MetricsRecorder::drop_old(Clock::time_point now) const {
  const auto horizon = now - std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(kRateWindowSeconds));
  while (!recent_.empty() && recent_.front().when <= horizon) {
    recent_tokens_ -= recent_.front().tokens;
    recent_.pop_front();
  }
}

Metrics MetricsRecorder::snapshot(Clock::time_point now) const {
  std::lock_guard lock(mu_);
  drop_old(now);
  Metrics out = m_;
  // A young engine divides by its age, not by the whole window.
  const double age = std::chrono::duration<double>(now - started_).count();
  const double span = std::clamp(age, 1e-3, kRateWindowSeconds);
  out.generated_tokens_per_second = static_cast<double>(recent_tokens_) / span;
  out.ttft_bucket_bounds = ttft_bounds();
  out.ttft_bucket_counts.resize(ttft_buckets_.size());
  uint64_t running_total = 0;
  for (size_t i = 0; i < ttft_buckets_.size(); ++i)
    out.ttft_bucket_counts[i] = running_total += ttft_buckets_[i];
  return out;
}

}  // namespace zen::engine
