// MetricsRecorder: Prometheus' cumulative "le" buckets and the tokens/s window, with time
// points given by the test (no sleeping, no clock dependence).
#include <gtest/gtest.h>

#include "engine/metrics.h"

namespace zen::engine {
namespace {

using Clock = MetricsRecorder::Clock;
using std::chrono::milliseconds;

TEST(EngineMetrics, TimeToFirstTokenBucketsAreCumulativeLessOrEqual) {
  MetricsRecorder r;
  for (double s : {0.05, 0.07, 0.3, 3.0, 45.0}) r.first_token(s);
  const Metrics m = r.snapshot();
  const std::vector<double> bounds{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
  EXPECT_EQ(m.ttft_bucket_bounds, bounds);
  // le=0.05 holds 0.05 itself; 45 s is only in +Inf (ttft_count).
  EXPECT_EQ(m.ttft_bucket_counts, (std::vector<uint64_t>{1, 2, 2, 3, 3, 3, 4, 4, 4}));
  EXPECT_EQ(m.ttft_count, 5u);
  EXPECT_DOUBLE_EQ(m.ttft_sum, 0.05 + 0.07 + 0.3 + 3.0 + 45.0);
}

TEST(EngineMetrics, TokensPerSecondOverTheLastTenSeconds) {
  MetricsRecorder r;
  const Clock::time_point t0 = Clock::now();
  r.tokens_generated(100, t0 + milliseconds(1000));
  r.tokens_generated(50, t0 + milliseconds(11500));
  // At 12 s: the first batch left the 10 s window; 50 tokens over 10 s.
  Metrics m = r.snapshot(t0 + milliseconds(12000));
  EXPECT_NEAR(m.generated_tokens_per_second, 5.0, 1e-9);
  EXPECT_EQ(m.generated_tokens_total, 150u);
  // Idle for longer than the window: 0.
  m = r.snapshot(t0 + milliseconds(30000));
  EXPECT_EQ(m.generated_tokens_per_second, 0.0);
}

TEST(EngineMetrics, CountersAndGauges) {
  MetricsRecorder r;
  r.request_accepted(7);
  r.request_accepted(5);
  model::KvCache::Stats kv;
  kv.blocks_total = 64;
  kv.blocks_used = 3;
  r.set_state(2, 4, kv);
  const Metrics m = r.snapshot();
  EXPECT_EQ(m.requests_total, 2u);
  EXPECT_EQ(m.prompt_tokens_total, 12u);
  EXPECT_EQ(m.queued, 2u);
  EXPECT_EQ(m.running, 4u);
  EXPECT_EQ(m.kv.blocks_used, 3u);
  EXPECT_EQ(m.kv.blocks_total, 64u);
}

}  // namespace
}  // namespace zen::engine
