// Text generation on one sequence of a Context, shared by `zen-engine run` (and whatever else
// drives a single conversation): the prompt's tokens are matched against what the cache
// already holds, so a chat turn only computes its new tokens; then sampled tokens stream out
// as complete UTF-8 text until an end-of-generation token, the token limit or a full cache.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "model/context.h"
#include "sampler/sampler.h"
#include "tokenizer/tokenizer.h"

namespace zen::host {

struct GenerationStats {
  size_t prompt_tokens = 0;  // computed for this prompt (after the reused prefix)
  size_t reused_tokens = 0;  // prefix already in the cache
  size_t generated = 0;
  double prompt_seconds = 0, generate_seconds = 0;
  std::string stop_reason;  // "eog", "length", "context"
};

class Generator {
 public:
  Generator(model::Context& ctx, const tokenizer::Tokenizer& tok, int32_t seq = 0)
      : ctx_(ctx), tok_(tok), seq_(seq) {}

  // Runs the prompt (reusing the cached common prefix) and samples up to max_tokens tokens
  // with a sampler made for this turn, calling on_text with each complete piece of text.
  // Returns the generated text.
  std::string generate(const std::vector<int32_t>& prompt, const sampling::Params& sampling,
                       int max_tokens, const std::function<void(std::string_view)>& on_text,
                       GenerationStats& stats);
  // Drops everything cached for this sequence.
  void reset();
  const std::vector<int32_t>& cached() const { return cached_; }

 private:
  model::Context& ctx_;
  const tokenizer::Tokenizer& tok_;
  int32_t seq_;
  std::vector<int32_t> cached_;  // tokens whose K/V sit in the cache, in order
};

}  // namespace zen::host
