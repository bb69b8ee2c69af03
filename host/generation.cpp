#include "generation.h"

#include <algorithm>
#include <chrono>

#include <zen/plugin.hpp>

namespace zen::host {
namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

void Generator::reset() {
  ctx_.kv().seq_free(seq_);
  cached_.clear();
}

std::string Generator::generate(const std::vector<int32_t>& prompt,
                                const sampling::Params& sampling, int max_tokens,
                                const std::function<void(std::string_view)>& on_text,
                                GenerationStats& stats) {
  if (prompt.empty()) throw Error(ZEN_ERR_INVALID_ARG, "generate: empty prompt");
  stats = GenerationStats{};
  // Reuse the longest cached prefix, but always compute at least one token: its logits start
  // the generation.
  size_t keep = std::mismatch(cached_.begin(), cached_.end(), prompt.begin(), prompt.end()).first -
                cached_.begin();
  keep = std::min(keep, prompt.size() - 1);
  ctx_.kv().seq_truncate(seq_, static_cast<int32_t>(keep));
  cached_.resize(keep);
  if (prompt.size() >= ctx_.kv().size())
    throw Error(ZEN_ERR_INVALID_ARG, "the prompt is " + std::to_string(prompt.size()) +
                                         " tokens; the context holds " +
                                         std::to_string(ctx_.kv().size()));
  const std::vector<int32_t> fresh(prompt.begin() + static_cast<ptrdiff_t>(keep), prompt.end());
  auto t0 = std::chrono::steady_clock::now();
  ctx_.decode(model::Batch::sequence(fresh, static_cast<int32_t>(keep), seq_, false));
  cached_ = prompt;
  stats.reused_tokens = keep;
  stats.prompt_tokens = fresh.size();
  stats.prompt_seconds = since(t0);

  sampling::Sampler sampler(sampling, ctx_.n_vocab());  // the logits' width, known by now
  sampler.add_prompt(prompt);
  tokenizer::StreamDecoder text(tok_);
  std::string out;
  auto emit = [&](const std::string& s) {
    if (s.empty()) return;
    out += s;
    if (on_text) on_text(s);
  };
  t0 = std::chrono::steady_clock::now();
  stats.stop_reason = "length";
  for (int i = 0; i < max_tokens; ++i) {
    const int32_t tok = sampler.sample(ctx_.logits(0));
    sampler.accept(tok);
    if (tok_.is_eog(tok)) {
      stats.stop_reason = "eog";
      break;
    }
    emit(text.push(tok));
    ++stats.generated;
    if (cached_.size() + 1 >= ctx_.kv().size()) {
      stats.stop_reason = "context";
      break;
    }
    if (i + 1 == max_tokens) break;  // the last token needs no forward pass
    const int32_t pos = static_cast<int32_t>(cached_.size());
    ctx_.decode(model::Batch::sequence(std::span(&tok, 1), pos, seq_, false));
    cached_.push_back(tok);
  }
  emit(text.flush());
  stats.generate_seconds = since(t0);
  return out;
}

}  // namespace zen::host
