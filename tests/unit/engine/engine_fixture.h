// What the engine tests share: the real tiny models loaded through the real host (plugins,
// CPU device), a Sink that records everything, a gate that holds the engine thread still so a
// test can line requests up, and a plain greedy loop over a Context as the reference.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine.h"
#include "tiny_host.h"

namespace zen::engine {

// Readable failures: "kCancelled", not "4-byte object <03-00 00-00>".
inline void PrintTo(Finish f, std::ostream* os) {
  static const char* const names[] = {"kStop", "kLength", "kCancelled", "kError"};
  *os << names[static_cast<int>(f)];
}

}  // namespace zen::engine

namespace zen::engine::test {

inline std::unique_ptr<host::LoadedModel> load_tiny(const std::string& name,
                                                    model::ContextParams params) {
  return ::zen::test::load_model(::zen::test::kTinyModelsDir + name + ".gguf", params);
}

// Everything a request's sink was told, in order, safe to read from the test thread.
class RecordingSink : public Sink {
 public:
  explicit RecordingSink(int n_choices = 1) : tokens_(n_choices), finish_(n_choices) {}

  bool on_token(int choice, int32_t token, const sampling::Logprobs* logprobs) override {
    std::function<bool(int, int32_t)> hook;
    {
      std::lock_guard lock(mu_);
      EXPECT_FALSE(done_) << "on_token after on_done";
      EXPECT_FALSE(finish_.at(choice).has_value()) << "on_token after on_finish";
      tokens_.at(choice).push_back(token);
      if (logprobs) logprobs_.push_back(*logprobs);
      hook = on_token_hook;
    }
    return hook ? hook(choice, token) : true;
  }
  void on_finish(int choice, Finish reason, const std::string& error) override {
    std::lock_guard lock(mu_);
    EXPECT_FALSE(finish_.at(choice).has_value()) << "on_finish twice for choice " << choice;
    finish_.at(choice) = reason;
    errors_.push_back(error);
  }
  void on_done(const Usage& usage) override {
    std::lock_guard lock(mu_);
    EXPECT_FALSE(done_) << "on_done twice";
    for (size_t i = 0; i < finish_.size(); ++i)
      EXPECT_TRUE(finish_[i].has_value()) << "on_done before on_finish of choice " << i;
    usage_ = usage;
    ++done_;
    cv_.notify_all();
  }

  // Waits (bounded: a hang fails the test instead of blocking CI) for on_done.
  bool wait_done(std::chrono::seconds timeout = std::chrono::seconds(120)) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return done_ > 0; });
  }
  std::vector<int32_t> tokens(int choice = 0) const {
    std::lock_guard lock(mu_);
    return tokens_.at(choice);
  }
  std::optional<Finish> finish(int choice = 0) const {
    std::lock_guard lock(mu_);
    return finish_.at(choice);
  }
  Usage usage() const {
    std::lock_guard lock(mu_);
    return usage_;
  }
  int done_count() const {
    std::lock_guard lock(mu_);
    return done_;
  }
  std::vector<std::string> errors() const {
    std::lock_guard lock(mu_);
    return errors_;
  }
  std::vector<sampling::Logprobs> logprobs() const {
    std::lock_guard lock(mu_);
    return logprobs_;
  }

  // Runs on the engine thread after each token is recorded; its result is on_token's.
  std::function<bool(int, int32_t)> on_token_hook;

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::vector<int32_t>> tokens_;
  std::vector<std::optional<Finish>> finish_;
  std::vector<std::string> errors_;
  std::vector<sampling::Logprobs> logprobs_;
  Usage usage_{};
  int done_ = 0;
};

// A request whose first token parks the engine thread until open(): while it is closed the
// test submits requests, which the engine then takes in one go, in order, so what runs with
// what is fixed by the algorithm and not by thread timing.
class Gate {
 public:
  std::shared_ptr<RecordingSink> sink = std::make_shared<RecordingSink>();

  Gate() {
    // The hook owns the state: the gate's request may outlive the Gate object.
    sink->on_token_hook = [state = state_](int, int32_t) {
      std::unique_lock lock(state->mu);
      if (!state->held) {
        state->held = true;
        state->cv.notify_all();
        state->cv.wait(lock, [&] { return state->open; });
      }
      return true;
    };
  }
  // Submits the gate request and waits until the engine thread is parked in it.
  void close(Engine& engine, Request request) {
    engine.submit(std::move(request), sink);
    std::unique_lock lock(state_->mu);
    ASSERT_TRUE(state_->cv.wait_for(lock, std::chrono::seconds(60), [&] { return state_->held; }));
  }
  void open() {
    std::lock_guard lock(state_->mu);
    state_->open = true;
    state_->cv.notify_all();
  }
  ~Gate() { open(); }

 private:
  struct State {
    std::mutex mu;
    std::condition_variable cv;
    bool held = false, open = false;
  };
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

inline Request greedy_request(std::vector<int32_t> prompt, int32_t max_tokens) {
  Request r;
  r.prompt = std::move(prompt);
  r.sampling.temperature = 0.0f;
  r.max_tokens = max_tokens;
  return r;
}

inline Request sampled_request(std::vector<int32_t> prompt, int32_t max_tokens, uint64_t seed) {
  Request r;
  r.prompt = std::move(prompt);
  r.sampling.temperature = 0.9f;
  r.sampling.top_k = 40;
  r.sampling.seed = seed;
  r.max_tokens = max_tokens;
  return r;
}

// Deterministic pseudo-random token ids in [1, n_vocab - 2] (the tiny vocabularies end with
// their special tokens).
inline std::vector<int32_t> make_prompt(size_t n, uint32_t seed, int32_t n_vocab) {
  std::vector<int32_t> ids(n);
  uint32_t x = seed * 2654435761u + 12345u;
  for (int32_t& id : ids) {
    x = x * 1664525u + 1013904223u;
    id = 1 + static_cast<int32_t>((x >> 8) % static_cast<uint32_t>(n_vocab - 3));
  }
  return ids;
}

// Runs one request alone on the engine and returns its sink once done.
inline std::shared_ptr<RecordingSink> run_alone(Engine& engine, Request request) {
  auto sink = std::make_shared<RecordingSink>(request.n);
  engine.submit(std::move(request), sink);
  EXPECT_TRUE(sink->wait_done());
  return sink;
}

// Waits until the engine has nothing queued or running (metrics are published after each step).
inline Metrics wait_idle(const Engine& engine) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  Metrics m = engine.metrics();
  while ((m.running || m.queued) && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    m = engine.metrics();
  }
  return m;
}

// The reference: argmax (ties to the lowest id) over the logits of a plain loop on a Context,
// the prompt in one batch and then one token at a time, as host/generation.cpp decodes.
inline int32_t argmax(std::span<const float> row) {
  return static_cast<int32_t>(std::max_element(row.begin(), row.end()) - row.begin());
}

inline std::vector<int32_t> greedy_reference(model::Context& ctx,
                                             const std::vector<int32_t>& prompt, int n_tokens) {
  ctx.kv().clear();
  ctx.decode(model::Batch::sequence(prompt, 0, 0, false));
  std::vector<int32_t> out;
  int32_t pos = static_cast<int32_t>(prompt.size());
  for (int i = 0; i < n_tokens; ++i) {
    const int32_t t = argmax(ctx.logits(0));
    out.push_back(t);
    if (i + 1 == n_tokens) break;
    ctx.decode(model::Batch::sequence(std::span(&t, 1), pos++, 0, false));
  }
  ctx.kv().clear();
  return out;
}

}  // namespace zen::engine::test
