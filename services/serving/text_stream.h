// The engine Sink a blocking caller (`zen-engine run`) reads one request's text from: tokens
// become text on the engine thread, which must not wait on I/O, and the caller's thread takes
// it as it comes, then the request's end and usage.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.h"
#include "tokenizer/tokenizer.h"

namespace zen::serving {

class TextStream final : public engine::Sink {
 public:
  using Clock = std::chrono::steady_clock;
  explicit TextStream(const tokenizer::Tokenizer& tok) : text_(tok) {}

  bool on_token(int choice, int32_t token, const sampling::Logprobs* logprobs) override;
  void on_finish(int choice, engine::Finish reason, const std::string& error) override;
  void on_done(const engine::Usage& usage) override;

  // On the caller's thread: hands the text to `out` as it comes, until the last event.
  void drain(const std::function<void(std::string_view)>& out);
  // After drain():
  engine::Finish reason() const { return reason_; }
  const std::string& error() const { return error_; }
  const engine::Usage& usage() const { return usage_; }
  // When the first token came (`otherwise` if none did), and when the request ended.
  Clock::time_point first_token(Clock::time_point otherwise) const {
    return first_token_.value_or(otherwise);
  }
  Clock::time_point end() const { return end_; }

 private:
  tokenizer::StreamDecoder text_;  // engine thread only
  std::mutex mu_;
  std::condition_variable wake_;
  std::string pending_;
  std::optional<Clock::time_point> first_token_;
  Clock::time_point end_;
  engine::Finish reason_ = engine::Finish::kStop;
  std::string error_;
  engine::Usage usage_;
  bool done_ = false;
};

// One blocking completion through the engine (what `zen-engine run` does per turn): prompt ids
// in, the text streamed to `out` as it comes, at most max_tokens (cut to what the context has
// room for), ending at a stop token.
struct Completion {
  std::string text;
  size_t prompt_tokens = 0;  // computed for this prompt (after the reused prefix)
  size_t reused_tokens = 0;  // found in the prefix cache
  size_t generated = 0;
  double prompt_seconds = 0, generate_seconds = 0;
  std::string stop_reason;  // "eog", "length", "context"
};
// Throws zen::Error for an empty prompt, one the context cannot hold, or an engine failure.
Completion complete(engine::Engine& engine, const tokenizer::Tokenizer& tok,
                    const std::vector<int32_t>& ids, const sampling::Params& sampling,
                    int32_t max_tokens, const std::vector<int32_t>& stop_tokens,
                    const std::function<void(std::string_view)>& out);

}  // namespace zen::serving
