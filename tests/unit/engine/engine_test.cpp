// The engine on the real tiny models (tests/data/models/tiny) through the real host, plugins and
// CPU device: its tokens against a plain greedy loop over a Context, batched runs against solo
// runs, cancellation at every stage, the prefix cache, n > 1, limits and errors, shutdown.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>

#include "engine_fixture.h"

namespace zen::engine::test {
namespace {

constexpr int32_t kTinyVocab = 512;

model::ContextParams tiny_context(bool gather_kv) {
  model::ContextParams p;
  p.n_ctx = 1024;  // 64 blocks of 16; n_ctx_per_seq is the tiny models' 256
  p.gather_kv = gather_kv;
  return p;
}

class EngineTest : public ::testing::Test {
 protected:
  void start(EngineParams params, const std::string& model = "llama") {
    engine_.reset();
    lm_ = load_tiny(model, tiny_context(params.deterministic));
    engine_ = std::make_unique<Engine>(lm_->context(), params);
  }
  static EngineParams deterministic(uint32_t chunk = 16) {
    EngineParams p;
    p.deterministic = true;
    p.prefill_chunk = chunk;
    p.max_batch_tokens = 64;
    return p;
  }
  Engine& engine() { return *engine_; }

  std::unique_ptr<host::LoadedModel> lm_;
  std::unique_ptr<Engine> engine_;  // declared last: stops before the model goes
};

// --- Against a plain loop over Context -------------------------------------------------------

class GreedyLoop : public ::testing::TestWithParam<std::string> {};

TEST_P(GreedyLoop, OneRequestEqualsArgmaxLoopOverContext) {
  auto lm = load_tiny(GetParam(), tiny_context(false));
  const std::vector<int32_t> prompt = make_prompt(37, 1, kTinyVocab);
  const std::vector<int32_t> want = greedy_reference(lm->context(), prompt, 20);
  {
    Engine engine(lm->context(), {});
    auto sink = run_alone(engine, greedy_request(prompt, 20));
    EXPECT_EQ(sink->tokens(), want) << "whole prompt in one chunk";
    EXPECT_EQ(sink->finish(), Finish::kLength);
    EXPECT_EQ(sink->usage().prompt_tokens, 37u);
    EXPECT_EQ(sink->usage().completion_tokens, 20u);
  }
  {
    EngineParams p;
    p.prefill_chunk = 16;  // the prompt in three chunks of three steps
    Engine engine(lm->context(), p);
    auto sink = run_alone(engine, greedy_request(prompt, 20));
    EXPECT_EQ(sink->tokens(), want) << "chunked prefill";
  }
}

INSTANTIATE_TEST_SUITE_P(Tiny, GreedyLoop,
                         ::testing::Values("llama", "qwen3", "qwen3moe", "gemma3"));

// --- Batched against alone ---------------------------------------------------------------------

// Eight requests with different prompts (lengths 5 to 68, so some prefill in several chunks
// while others decode) and seeds.
std::vector<Request> eight_requests(bool greedy) {
  std::vector<Request> out;
  for (uint32_t i = 0; i < 8; ++i) {
    std::vector<int32_t> prompt = make_prompt(5 + 9 * i, 100 + i, kTinyVocab);
    out.push_back(greedy ? greedy_request(prompt, 24) : sampled_request(prompt, 24, 1000 + i));
  }
  return out;
}

// Runs the requests alone, one after another, then all at once behind a gate (so they enter
// the engine together, with the gate's own request running too), and counts the requests
// whose tokens differ.
int batched_mismatches(Engine& engine, const std::vector<Request>& requests) {
  std::vector<std::vector<int32_t>> alone;
  for (const Request& r : requests) alone.push_back(run_alone(engine, r)->tokens());
  Gate gate;
  gate.close(engine, sampled_request(make_prompt(30, 99, kTinyVocab), 40, 5));
  std::vector<std::shared_ptr<RecordingSink>> sinks;
  for (const Request& r : requests) {
    sinks.push_back(std::make_shared<RecordingSink>());
    engine.submit(r, sinks.back());
  }
  gate.open();
  int mismatches = 0;
  for (size_t i = 0; i < sinks.size(); ++i) {
    EXPECT_TRUE(sinks[i]->wait_done());
    EXPECT_EQ(sinks[i]->tokens().size(), 24u);
    if (sinks[i]->tokens() != alone[i]) {
      ++mismatches;
      ADD_FAILURE() << "request " << i << " batched differs from alone";
    }
  }
  EXPECT_TRUE(gate.sink->wait_done());
  return mismatches;
}

TEST_F(EngineTest, DeterministicSeededRequestsBatchedEqualAlone) {
  start(deterministic());
  EXPECT_EQ(batched_mismatches(engine(), eight_requests(false)), 0);
}

// Without deterministic mode the sequences share matrix products and attention runs over the
// shared cells; on the tiny model that changes no greedy token (docs/ENGINE.md).
TEST_F(EngineTest, BatchedGreedyEqualsAloneWithoutDeterministicMode) {
  EngineParams p;
  p.prefill_chunk = 16;
  p.max_batch_tokens = 64;
  start(p);
  EXPECT_EQ(batched_mismatches(engine(), eight_requests(true)), 0);
}

// --- Cancellation ------------------------------------------------------------------------------

// Four victims and two bystanders lined up behind a gate; the observer's sink cancels the
// victims at fixed points of its own output, so the stage each is in follows from the schedule
// alone (deterministic mode: every chunk length is a function of its request):
//   queued:     max_running 4 is full (gate, observer, decoding victim, prefilling victim);
//   prefilling: a 200-token prompt in 16-token chunks needs 13 steps, cancelled at step ~4;
//   decoding:   cancelled at the observer's 10th token, after ~9 of its own.
TEST_F(EngineTest, CancelWhileQueuedPrefillingOrDecodingFreesBlocksAndTouchesNobody) {
  EngineParams p = deterministic();
  p.max_running = 4;
  start(p);
  const uint32_t blocks_before = wait_idle(engine()).kv.blocks_used;
  const Request observer = sampled_request(make_prompt(20, 1, kTinyVocab), 30, 11);
  const Request decoding = sampled_request(make_prompt(10, 2, kTinyVocab), 60, 12);
  const Request prefilling = sampled_request(make_prompt(200, 3, kTinyVocab), 20, 13);
  const Request queued = sampled_request(make_prompt(12, 4, kTinyVocab), 20, 14);
  const Request bystander = sampled_request(make_prompt(25, 5, kTinyVocab), 20, 15);
  const std::vector<int32_t> observer_alone = run_alone(engine(), observer)->tokens();
  const std::vector<int32_t> decoding_alone = run_alone(engine(), decoding)->tokens();
  const std::vector<int32_t> bystander_alone = run_alone(engine(), bystander)->tokens();

  struct Ids {
    uint64_t decoding = 0, prefilling = 0, queued = 0;
  } ids;
  auto obs = std::make_shared<RecordingSink>();
  obs->on_token_hook = [&](int, int32_t) {
    const size_t n = obs->tokens().size();
    if (n == 2) engine().cancel(ids.queued);
    if (n == 3) engine().cancel(ids.prefilling);
    if (n == 10) engine().cancel(ids.decoding);
    return true;
  };
  auto dec = std::make_shared<RecordingSink>(), pre = std::make_shared<RecordingSink>(),
       que = std::make_shared<RecordingSink>(), bys = std::make_shared<RecordingSink>();
  Gate gate;
  gate.close(engine(), sampled_request(make_prompt(8, 9, kTinyVocab), 40, 16));
  engine().submit(observer, obs);
  ids.decoding = engine().submit(decoding, dec);
  ids.prefilling = engine().submit(prefilling, pre);
  ids.queued = engine().submit(queued, que);
  engine().submit(bystander, bys);
  gate.open();
  for (auto& s : {obs, dec, pre, que, bys, gate.sink}) ASSERT_TRUE(s->wait_done());

  EXPECT_EQ(que->finish(), Finish::kCancelled);
  EXPECT_TRUE(que->tokens().empty());
  EXPECT_EQ(pre->finish(), Finish::kCancelled);
  EXPECT_TRUE(pre->tokens().empty()) << "cancelled before its prompt was done";
  EXPECT_EQ(dec->finish(), Finish::kCancelled);
  const std::vector<int32_t> partial = dec->tokens();
  EXPECT_GE(partial.size(), 5u);
  EXPECT_LT(partial.size(), decoding_alone.size());
  EXPECT_TRUE(std::equal(partial.begin(), partial.end(), decoding_alone.begin()));
  EXPECT_EQ(dec->usage().completion_tokens, partial.size());

  EXPECT_EQ(obs->tokens(), observer_alone);
  EXPECT_EQ(obs->finish(), Finish::kLength);
  EXPECT_EQ(bys->tokens(), bystander_alone);
  EXPECT_EQ(bys->finish(), Finish::kLength);
  EXPECT_EQ(wait_idle(engine()).kv.blocks_used, blocks_before);
}

TEST_F(EngineTest, CancelIsIdempotentAndIgnoresUnknownIds) {
  start({});
  engine().cancel(12345);
  auto sink = std::make_shared<RecordingSink>();
  const uint64_t id = engine().submit(greedy_request(make_prompt(10, 1, kTinyVocab), 5), sink);
  ASSERT_TRUE(sink->wait_done());
  engine().cancel(id);
  engine().cancel(id);
  EXPECT_EQ(sink->finish(), Finish::kLength);
  auto next = run_alone(engine(), greedy_request(make_prompt(10, 1, kTinyVocab), 5));
  EXPECT_EQ(next->tokens(), sink->tokens());
  EXPECT_EQ(sink->done_count(), 1);
}

// --- Prefix cache ------------------------------------------------------------------------------

TEST_F(EngineTest, SecondRequestWithSamePrefixReusesBlocksAndMatchesFreshEngine) {
  start({});
  const std::vector<int32_t> prefix = make_prompt(100, 7, kTinyVocab);
  std::vector<int32_t> first = prefix, second = prefix;
  first.insert(first.end(), {5, 6, 7});
  second.insert(second.end(), {9, 10});
  auto a = run_alone(engine(), greedy_request(first, 10));
  EXPECT_EQ(a->usage().cached_tokens, 0u);
  auto b = run_alone(engine(), greedy_request(second, 8));
  // Blocks of 16: the first 6 (96 tokens) are shared; the 7th holds tokens 96..111, which
  // differ from position 100 on.
  EXPECT_EQ(b->usage().cached_tokens, 96u);
  EXPECT_GE(engine().metrics().kv.prefix_hit_tokens, 96u);

  // A second chat turn: the first request's prompt, its answer, and more. Blocks holding
  // generated tokens were published too: the first request decoded 103 + 9 = 112 tokens (its
  // 10th was never decoded), 7 whole blocks, the 7th ending with 9 generated tokens.
  std::vector<int32_t> turn = first;
  const std::vector<int32_t> answer = a->tokens();
  ASSERT_EQ(answer.size(), 10u);
  turn.insert(turn.end(), answer.begin(), answer.end());
  turn.insert(turn.end(), {11, 12, 13, 14});
  auto c = run_alone(engine(), greedy_request(turn, 8));
  EXPECT_EQ(c->usage().cached_tokens, 112u);

  start({});  // a fresh engine (and model, and cache)
  EXPECT_EQ(run_alone(engine(), greedy_request(second, 8))->tokens(), b->tokens());
  EXPECT_EQ(run_alone(engine(), greedy_request(turn, 8))->tokens(), c->tokens());
}

// Deterministic mode shares only whole prompt chunks (here 32 tokens), so a hit reuses exactly
// what the request would have computed itself.
TEST_F(EngineTest, DeterministicPrefixHitsAreWholeChunks) {
  start(deterministic(32));
  const std::vector<int32_t> prefix = make_prompt(90, 8, kTinyVocab);
  std::vector<int32_t> first = prefix, second = prefix;
  first.insert(first.end(), {5, 6, 7});
  second.insert(second.end(), {9, 10});
  run_alone(engine(), sampled_request(first, 8, 1));
  auto b = run_alone(engine(), sampled_request(second, 8, 2));
  EXPECT_EQ(b->usage().cached_tokens, 64u);  // chunks [0, 32) and [32, 64); [64, 96) differs
  start(deterministic(32));
  EXPECT_EQ(run_alone(engine(), sampled_request(second, 8, 2))->tokens(), b->tokens());
}

// --- n > 1 -------------------------------------------------------------------------------------

TEST_F(EngineTest, ThreeChoicesEqualSoloRunsWithSeedPlusIndex) {
  start(deterministic());
  const std::vector<int32_t> prompt = make_prompt(40, 21, kTinyVocab);
  Request r = sampled_request(prompt, 16, 77);
  r.n = 3;
  auto sink = run_alone(engine(), r);
  uint32_t total = 0;
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(sink->finish(i), Finish::kLength);
    auto solo = run_alone(engine(), sampled_request(prompt, 16, 77 + static_cast<uint64_t>(i)));
    EXPECT_EQ(sink->tokens(i), solo->tokens()) << "choice " << i;
    total += static_cast<uint32_t>(sink->tokens(i).size());
  }
  EXPECT_NE(sink->tokens(0), sink->tokens(1)) << "different seeds, same tokens: suspicious";
  EXPECT_EQ(sink->usage().completion_tokens, total);
  EXPECT_EQ(sink->usage().prompt_tokens, 40u);
}

// --- Limits and errors -------------------------------------------------------------------------

TEST_F(EngineTest, QueueFullWhenMaxQueuedRequestsWait) {
  EngineParams p;
  p.max_running = 1;
  p.max_queued = 2;
  start(p);
  Gate gate;  // the gate's request is the one running sequence
  gate.close(engine(), greedy_request(make_prompt(5, 1, kTinyVocab), 3));
  auto a = std::make_shared<RecordingSink>(), b = std::make_shared<RecordingSink>();
  engine().submit(greedy_request(make_prompt(5, 2, kTinyVocab), 3), a);
  engine().submit(greedy_request(make_prompt(5, 3, kTinyVocab), 3), b);
  EXPECT_THROW(engine().submit(greedy_request(make_prompt(5, 4, kTinyVocab), 3),
                               std::make_shared<RecordingSink>()),
               QueueFull);
  EXPECT_EQ(engine().metrics().queued, 2u);
  gate.open();
  ASSERT_TRUE(a->wait_done());
  ASSERT_TRUE(b->wait_done());
  EXPECT_EQ(a->tokens().size(), 3u);
  // Room again once they are through.
  EXPECT_EQ(run_alone(engine(), greedy_request(make_prompt(5, 4, kTinyVocab), 3))->finish(),
            Finish::kLength);
}

TEST_F(EngineTest, ContextLimitsPerSequence) {
  EngineParams p;
  p.n_ctx_per_seq = 64;
  start(p);
  EXPECT_EQ(engine().n_ctx_per_seq(), 64u);
  EXPECT_THROW(engine().submit(greedy_request(make_prompt(64, 1, kTinyVocab), -1),
                               std::make_shared<RecordingSink>()),
               ContextExceeded);
  EXPECT_THROW(engine().submit(greedy_request(make_prompt(60, 1, kTinyVocab), 5),
                               std::make_shared<RecordingSink>()),
               ContextExceeded);
  auto fits = run_alone(engine(), greedy_request(make_prompt(60, 1, kTinyVocab), 4));
  EXPECT_EQ(fits->tokens().size(), 4u);
  // Until the end of the context: 60 + 4 = 64 tokens.
  auto open_ended = run_alone(engine(), greedy_request(make_prompt(60, 1, kTinyVocab), -1));
  EXPECT_EQ(open_ended->tokens(), fits->tokens());
  EXPECT_EQ(open_ended->finish(), Finish::kLength);

  start({});  // n_ctx_per_seq defaults to the model's training context
  EXPECT_EQ(engine().n_ctx_per_seq(), 256u);
}

TEST_F(EngineTest, MaxTokensStopTokensAndSinkStop) {
  start({});
  const std::vector<int32_t> prompt = make_prompt(12, 31, kTinyVocab);
  const std::vector<int32_t> ref = greedy_reference(lm_->context(), prompt, 12);
  // The first token not seen before it: generation must stop right there.
  size_t k = 1;
  while (k < ref.size() && std::find(ref.begin(), ref.begin() + k, ref[k]) != ref.begin() + k) ++k;
  ASSERT_LT(k, ref.size()) << "the reference repeats itself; pick another prompt";

  auto len = run_alone(engine(), greedy_request(prompt, 7));
  EXPECT_EQ(len->finish(), Finish::kLength);
  EXPECT_EQ(len->tokens(), std::vector<int32_t>(ref.begin(), ref.begin() + 7));

  Request stop = greedy_request(prompt, 12);
  stop.stop_tokens = {ref[k], kTinyVocab - 1};
  auto stopped = run_alone(engine(), stop);
  EXPECT_EQ(stopped->finish(), Finish::kStop);
  EXPECT_EQ(stopped->tokens(), std::vector<int32_t>(ref.begin(), ref.begin() + k))
      << "the stop token itself is not delivered";
  EXPECT_EQ(stopped->usage().completion_tokens, k);

  stop.ignore_eos = true;
  auto ignored = run_alone(engine(), stop);
  EXPECT_EQ(ignored->finish(), Finish::kLength);
  EXPECT_EQ(ignored->tokens(), ref);

  auto asked = std::make_shared<RecordingSink>();
  asked->on_token_hook = [&](int, int32_t) { return asked->tokens().size() < 3; };
  engine().submit(greedy_request(prompt, 12), asked);
  ASSERT_TRUE(asked->wait_done());
  EXPECT_EQ(asked->finish(), Finish::kStop);
  EXPECT_EQ(asked->tokens(), std::vector<int32_t>(ref.begin(), ref.begin() + 3));
}

TEST_F(EngineTest, InvalidRequestsAreRefusedAtSubmit) {
  start({});
  auto sink = std::make_shared<RecordingSink>();
  auto refuse = [&](Request r) { EXPECT_THROW(engine().submit(r, sink), InvalidRequest); };
  refuse(greedy_request({}, 4));
  refuse(greedy_request({1, kTinyVocab}, 4));
  refuse(greedy_request({1, -1}, 4));
  refuse(greedy_request({1, 2}, 0));
  refuse(greedy_request({1, 2}, -2));
  Request r = greedy_request({1, 2}, 4);
  r.sampling.temperature = -1;
  refuse(r);
  r = greedy_request({1, 2}, 4);
  r.n = 0;
  refuse(r);
  r = greedy_request({1, 2}, 4);
  r.stop_tokens = {99999};
  refuse(r);
  r = greedy_request({1, 2}, 4);
  r.sampling.logit_bias[kTinyVocab] = 1.0f;
  refuse(r);
  EXPECT_THROW(engine().submit(greedy_request({1, 2}, 4), nullptr), InvalidRequest);
  EXPECT_EQ(sink->done_count(), 0) << "a refused request gets no Sink call";
  EXPECT_EQ(engine().metrics().requests_total, 0u);
}

TEST_F(EngineTest, DeterministicModeNeedsGatherKv) {
  lm_ = load_tiny("llama", tiny_context(false));
  EngineParams p;
  p.deterministic = true;
  EXPECT_THROW(Engine(lm_->context(), p), std::invalid_argument);
  EngineParams bad;
  bad.max_batch_tokens = bad.max_running;
  EXPECT_THROW(Engine(lm_->context(), bad), std::invalid_argument);
}

// A request whose sampling cannot go on (logit_bias bans every token) fails alone; the one
// running beside it is untouched.
TEST_F(EngineTest, FailedRequestEndsWithErrorAndOthersContinue) {
  start(deterministic());
  const Request good = sampled_request(make_prompt(15, 41, kTinyVocab), 12, 3);
  const std::vector<int32_t> alone = run_alone(engine(), good)->tokens();
  Request bad = sampled_request(make_prompt(15, 42, kTinyVocab), 12, 4);
  for (int32_t t = 0; t < kTinyVocab; ++t)
    bad.sampling.logit_bias[t] = -std::numeric_limits<float>::infinity();
  Gate gate;
  gate.close(engine(), greedy_request(make_prompt(5, 43, kTinyVocab), 4));
  auto g = std::make_shared<RecordingSink>(), b = std::make_shared<RecordingSink>();
  engine().submit(bad, b);
  engine().submit(good, g);
  gate.open();
  ASSERT_TRUE(b->wait_done());
  ASSERT_TRUE(g->wait_done());
  EXPECT_EQ(b->finish(), Finish::kError);
  EXPECT_NE(b->errors().at(0).find("no token can be drawn"), std::string::npos)
      << b->errors().at(0);
  EXPECT_EQ(g->tokens(), alone);
  EXPECT_EQ(wait_idle(engine()).kv.blocks_used, 0u);
}

TEST_F(EngineTest, LogprobsReachTheSink) {
  start({});
  Request r = greedy_request(make_prompt(9, 51, kTinyVocab), 4);
  r.sampling.n_probs = 3;
  auto sink = run_alone(engine(), r);
  const auto lps = sink->logprobs();
  ASSERT_EQ(lps.size(), 4u);
  for (size_t i = 0; i < lps.size(); ++i) {
    EXPECT_EQ(lps[i].chosen.token, sink->tokens()[i]);
    ASSERT_EQ(lps[i].top.size(), 3u);
    EXPECT_EQ(lps[i].top[0].token, sink->tokens()[i]) << "greedy picks the most likely";
    EXPECT_LE(lps[i].chosen.logprob, 0.0f);
  }
}

// --- Shutdown and metrics ----------------------------------------------------------------------

TEST_F(EngineTest, DestructionWithRequestsInFlightEndsEveryRequest) {
  EngineParams p;
  p.max_running = 2;
  start(p);
  std::vector<std::shared_ptr<RecordingSink>> sinks;
  {
    Gate gate;
    gate.close(engine(), greedy_request(make_prompt(5, 1, kTinyVocab), -1));
    for (uint32_t i = 0; i < 5; ++i) {
      Request r = greedy_request(make_prompt(10 + i, 60 + i, kTinyVocab), -1);
      r.n = 1 + static_cast<int32_t>(i % 2);
      sinks.push_back(std::make_shared<RecordingSink>(r.n));
      engine().submit(std::move(r), sinks.back());
    }
    sinks.push_back(gate.sink);
    gate.open();
  }
  engine_.reset();  // must not hang
  for (size_t i = 0; i < sinks.size(); ++i) {
    EXPECT_EQ(sinks[i]->done_count(), 1) << "request " << i;
    // Each runs until the end of the 256-token context: none can have got there.
    for (int c = 0; c < (i < 5 ? 1 + static_cast<int>(i % 2) : 1); ++c)
      EXPECT_EQ(sinks[i]->finish(c), Finish::kCancelled) << "request " << i << " choice " << c;
  }
}

TEST_F(EngineTest, SubmitAfterStopIsRefused) {
  start({});
  engine().stop();
  engine().stop();
  EXPECT_THROW(engine().submit(greedy_request({1, 2}, 3), std::make_shared<RecordingSink>()),
               QueueFull);
}

TEST_F(EngineTest, MetricsCountRequestsTokensAndTimeToFirstToken) {
  start({});
  uint32_t prompt_total = 0, generated_total = 0;
  for (uint32_t i = 0; i < 3; ++i) {
    auto s = run_alone(engine(), greedy_request(make_prompt(10 + i, 70 + i, kTinyVocab), 5 + i));
    prompt_total += 10 + i;
    generated_total += static_cast<uint32_t>(s->tokens().size());
  }
  const Metrics m = wait_idle(engine());
  EXPECT_EQ(m.requests_total, 3u);
  EXPECT_EQ(m.prompt_tokens_total, prompt_total);
  EXPECT_EQ(m.generated_tokens_total, generated_total);
  EXPECT_EQ(generated_total, 5u + 6u + 7u);
  EXPECT_GT(m.generated_tokens_per_second, 0.0);
  EXPECT_EQ(m.ttft_count, 3u);
  EXPECT_GT(m.ttft_sum, 0.0);
  ASSERT_EQ(m.ttft_bucket_bounds.size(), m.ttft_bucket_counts.size());
  for (size_t i = 1; i < m.ttft_bucket_counts.size(); ++i)
    EXPECT_LE(m.ttft_bucket_counts[i - 1], m.ttft_bucket_counts[i]);
  EXPECT_LE(m.ttft_bucket_counts.back(), m.ttft_count);
  EXPECT_EQ(m.running, 0u);
  EXPECT_EQ(m.queued, 0u);
  EXPECT_EQ(m.kv.blocks_total, 64u);
  EXPECT_EQ(m.kv.blocks_used, 0u);
  EXPECT_GT(m.kv.blocks_cached, 0u) << "finished requests leave their published blocks";
}

}  // namespace
}  // namespace zen::engine::test
