#include "serving/text_stream.h"

#include <zen/plugin.hpp>

namespace zen::serving {

bool TextStream::on_token(int, int32_t token, const sampling::Logprobs*) {
  const std::string piece = text_.push(token);
  std::lock_guard lock(mu_);
  if (!first_token_) first_token_ = Clock::now();
  pending_ += piece;
  wake_.notify_one();
  return true;
}

void TextStream::on_finish(int, engine::Finish reason, const std::string& error) {
  std::lock_guard lock(mu_);
  reason_ = reason;
  error_ = error;
}

void TextStream::on_done(const engine::Usage& usage) {
  const std::string tail = text_.flush();
  std::lock_guard lock(mu_);
  pending_ += tail;
  usage_ = usage;
  end_ = Clock::now();
  done_ = true;
  wake_.notify_one();
}

void TextStream::drain(const std::function<void(std::string_view)>& out) {
  std::unique_lock lock(mu_);
  for (;;) {
    wake_.wait(lock, [&] { return done_ || !pending_.empty(); });
    std::string piece;
    piece.swap(pending_);
    const bool done = done_;
    lock.unlock();
    if (!piece.empty()) out(piece);
    lock.lock();
    if (done && pending_.empty()) return;
  }
}

namespace {
double seconds(TextStream::Clock::time_point a, TextStream::Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}
}  // namespace

Completion complete(engine::Engine& engine, const tokenizer::Tokenizer& tok,
                    const std::vector<int32_t>& ids, const sampling::Params& sampling,
                    int32_t max_tokens, const std::vector<int32_t>& stop_tokens,
                    const std::function<void(std::string_view)>& out) {
  const uint32_t limit = engine.n_ctx_per_seq();
  if (ids.empty()) throw Error(ZEN_ERR_INVALID_ARG, "empty prompt");
  if (ids.size() >= limit)
    throw Error(ZEN_ERR_INVALID_ARG, "the prompt is " + std::to_string(ids.size()) +
                                         " tokens; the context holds " + std::to_string(limit));
  const int32_t room = static_cast<int32_t>(limit - ids.size());
  engine::Request request;
  request.prompt = ids;
  request.sampling = sampling;
  request.max_tokens = std::min(max_tokens, room);
  request.stop_tokens = stop_tokens;
  auto sink = std::make_shared<TextStream>(tok);
  const TextStream::Clock::time_point t0 = TextStream::Clock::now();
  engine.submit(std::move(request), sink);
  Completion c;
  sink->drain([&](std::string_view piece) {
    c.text += piece;
    out(piece);
  });
  if (sink->reason() == engine::Finish::kError) throw Error(ZEN_ERR_INTERNAL, sink->error());
  const engine::Usage& u = sink->usage();
  c.reused_tokens = u.cached_tokens;
  c.prompt_tokens = u.prompt_tokens - u.cached_tokens;
  c.generated = u.completion_tokens;
  const TextStream::Clock::time_point first = sink->first_token(sink->end());
  c.prompt_seconds = seconds(t0, first);
  c.generate_seconds = seconds(first, sink->end());
  c.stop_reason = sink->reason() == engine::Finish::kStop                          ? "eog"
                  : max_tokens > room && static_cast<int32_t>(c.generated) == room ? "context"
                                                                                   : "length";
  return c;
}

}  // namespace zen::serving
