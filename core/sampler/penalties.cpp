#include "sampler/penalties.h"

namespace zen::sampling {

Penalties::Penalties(const Params& params)
    : repeat_penalty_(params.repeat_penalty),
      repeat_last_n_(params.repeat_last_n),
      frequency_penalty_(params.frequency_penalty),
      presence_penalty_(params.presence_penalty),
      track_window_(params.repeat_penalty != 1.0f && params.repeat_last_n != 0),
      track_generated_(params.frequency_penalty != 0.0f || params.presence_penalty != 0.0f) {}

void Penalties::remember(int32_t token) {
  ++in_window_[token];
  if (repeat_last_n_ < 0) return;  // -1: the whole history, nothing ever leaves
  window_.push_back(token);
  if (window_.size() <= static_cast<size_t>(repeat_last_n_)) return;
  const int32_t oldest = window_.front();
  window_.pop_front();
  if (auto it = in_window_.find(oldest); --it->second == 0) in_window_.erase(it);
}

void Penalties::add_prompt(std::span<const int32_t> tokens) {
  if (!track_window_) return;
  // Only the last repeat_last_n can matter.
  if (repeat_last_n_ > 0 && tokens.size() > static_cast<size_t>(repeat_last_n_)) {
    tokens = tokens.last(static_cast<size_t>(repeat_last_n_));
  }
  for (int32_t t : tokens) remember(t);
}

void Penalties::accept(int32_t token) {
  if (track_window_) remember(token);
  if (track_generated_) ++generated_[token];
}

void Penalties::reset() {
  window_.clear();
  in_window_.clear();
  generated_.clear();
}

float Penalties::apply(int32_t token, float logit) const {
  if (track_window_ && in_window_.contains(token)) {
    logit = logit <= 0.0f ? logit * repeat_penalty_ : logit / repeat_penalty_;
  }
  if (track_generated_) {
    if (auto it = generated_.find(token); it != generated_.end()) {
      logit -= static_cast<float>(it->second) * frequency_penalty_ + presence_penalty_;
    }
  }
  return logit;
}

void Penalties::penalized_tokens(std::vector<int32_t>& out) const {
  for (const auto& entry : in_window_) out.push_back(entry.first);
  for (const auto& entry : generated_) {
    if (!in_window_.contains(entry.first)) out.push_back(entry.first);
  }
}

}  // namespace zen::sampling
