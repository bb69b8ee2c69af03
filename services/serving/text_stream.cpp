#include "serving/text_stream.h"

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

}  // namespace zen::serving
