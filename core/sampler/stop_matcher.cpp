#include "sampler/stop_matcher.h"

#include <algorithm>
#include <utility>

#include "sampler/error.h"
#include "text/utf8.h"

namespace zen::sampling {
namespace {

// fallback[i]: length of the longest proper prefix of s[0..i] that is also its suffix.
std::vector<size_t> failure_function(const std::string& s) {
  std::vector<size_t> fallback(s.size(), 0);
  size_t k = 0;
  for (size_t i = 1; i < s.size(); ++i) {
    while (k > 0 && s[i] != s[k]) k = fallback[k - 1];
    if (s[i] == s[k]) ++k;
    fallback[i] = k;
  }
  return fallback;
}

constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

StopMatcher::StopMatcher(std::vector<std::string> stops) {
  for (size_t i = 0; i < stops.size(); ++i) {
    if (stops[i].empty()) {
      throw InvalidParams("sampling: stop string " + std::to_string(i) + " is empty");
    }
    if (!text::utf8::is_valid(stops[i])) {
      throw InvalidParams("sampling: stop string " + std::to_string(i) + " is not valid UTF-8");
    }
    std::vector<size_t> fallback = failure_function(stops[i]);
    patterns_.push_back({std::move(stops[i]), std::move(fallback), 0});
  }
}

StopMatcher::Output StopMatcher::push(std::string_view chunk) {
  if (finished_) throw Error("sampling: StopMatcher::push after finish()");
  if (stopped_) return {"", stopped_};
  for (char c : chunk) {
    pending_.push_back(c);
    std::optional<size_t> completed;
    for (size_t k = 0; k < patterns_.size(); ++k) {
      Pattern& p = patterns_[k];
      while (p.matched > 0 && p.text[p.matched] != c) p.matched = p.fallback[p.matched - 1];
      if (p.text[p.matched] == c) ++p.matched;
      if (p.matched == p.text.size() &&
          (!completed || p.text.size() > patterns_[*completed].text.size())) {
        completed = k;
      }
    }
    if (completed) {
      // Everything before the stop string was held back no further than its start (the held
      // tail is at least as long as any partial match), so it is all in pending_.
      pending_.resize(pending_.size() - patterns_[*completed].text.size());
      stopped_ = completed;
      return {std::exchange(pending_, {}), completed};
    }
  }
  size_t held = text::utf8::incomplete_tail(pending_);
  for (const Pattern& p : patterns_) held = std::max(held, p.matched);
  Output out{pending_.substr(0, pending_.size() - held), std::nullopt};
  pending_.erase(0, pending_.size() - held);
  return out;
}

std::string StopMatcher::finish() {
  finished_ = true;  // after a stop pending_ is already empty
  std::string out = std::exchange(pending_, {});
  if (const size_t tail = text::utf8::incomplete_tail(out); tail > 0) {
    out.resize(out.size() - tail);
    out += kReplacementCharacter;
  }
  return out;
}

}  // namespace zen::sampling
