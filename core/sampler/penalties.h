// Repetition penalties and the token history they read.
//
// Two histories, because the two families of penalties come from two traditions:
//  - repeat_penalty (llama.cpp): over the last repeat_last_n tokens seen, prompt included
//    (feed the prompt with add_prompt). A penalized logit is divided by the penalty when
//    positive and multiplied by it when negative, so the penalty always lowers it.
//  - frequency_penalty / presence_penalty (OpenAI): over the tokens generated so far. The logit
//    loses count * frequency_penalty + (count > 0) * presence_penalty.
// Applied in that order (repeat first), as llama.cpp's penalties sampler does.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <unordered_map>
#include <vector>

#include "sampler/params.h"

namespace zen::sampling {

class Penalties {
 public:
  explicit Penalties(const Params& params);

  void add_prompt(std::span<const int32_t> tokens);  // repeat window only
  void accept(int32_t token);                        // repeat window and generated counts
  void reset();

  // The logit of `token` after the penalties.
  float apply(int32_t token, float logit) const;

  // Appends every token apply() may change (in no particular order, without repeats).
  void penalized_tokens(std::vector<int32_t>& out) const;

 private:
  void remember(int32_t token);

  float repeat_penalty_;
  int32_t repeat_last_n_;
  float frequency_penalty_;
  float presence_penalty_;
  bool track_window_;
  bool track_generated_;
  std::deque<int32_t> window_;                      // in order, when the window is bounded
  std::unordered_map<int32_t, int32_t> in_window_;  // token -> occurrences in the window
  std::unordered_map<int32_t, int32_t> generated_;  // token -> times generated
};

}  // namespace zen::sampling
