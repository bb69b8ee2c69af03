#include "model/perplexity.h"

#include <algorithm>
#include <cmath>

namespace zen::model {
namespace {

// log-softmax(logits)[target], in double for a stable sum over thousands of positions.
double log_prob(std::span<const float> logits, int32_t target) {
  float mx = logits[0];
  for (float x : logits) mx = std::max(mx, x);
  double sum = 0;
  for (float x : logits) sum += std::exp(static_cast<double>(x - mx));
  return static_cast<double>(logits[static_cast<size_t>(target)] - mx) - std::log(sum);
}

template <class T>
void put(std::ostream& out, const T& v) {
  out.write(reinterpret_cast<const char*>(&v), sizeof v);
}

}  // namespace

Perplexity perplexity(Context& ctx, const std::vector<int32_t>& ids, const PerplexityOptions& o,
                      const std::function<void(size_t, double)>& on_chunk) {
  if (o.logits) {
    o.logits->write("ZENLGT01", 8);
    put(*o.logits, o.n_vocab);
    put(*o.logits, static_cast<uint32_t>(o.n_ctx));
    put(*o.logits, static_cast<uint32_t>(o.n_chunks));
  }
  const size_t first = o.n_ctx / 2;
  double nll = 0, nll2 = 0;
  size_t count = 0;
  for (size_t c = 0; c < o.n_chunks; ++c) {
    std::vector<int32_t> chunk(ids.begin() + static_cast<ptrdiff_t>(c * o.n_ctx),
                               ids.begin() + static_cast<ptrdiff_t>((c + 1) * o.n_ctx));
    if (o.bos >= 0) chunk[0] = o.bos;
    ctx.kv().clear();
    ctx.decode(Batch::sequence(chunk, 0, 0, true));
    if (o.logits) {
      for (int32_t t : chunk) put(*o.logits, t);
      for (size_t i = 0; i < o.n_ctx; ++i) {
        std::span<const float> row = ctx.logits(i);
        o.logits->write(reinterpret_cast<const char*>(row.data()),
                        static_cast<std::streamsize>(row.size_bytes()));
      }
    }
    for (size_t i = first; i + 1 < o.n_ctx; ++i) {
      const double lp = -log_prob(ctx.logits(i), chunk[i + 1]);
      nll += lp;
      nll2 += lp * lp;
      ++count;
    }
    if (on_chunk) on_chunk(c + 1, std::exp(nll / static_cast<double>(count)));
  }
  Perplexity p;
  p.positions = count;
  if (count == 0) return p;
  const double mean = nll / static_cast<double>(count);
  const double var = nll2 / static_cast<double>(count) - mean * mean;
  const double err = count > 1 ? std::sqrt(std::max(var, 0.0) / static_cast<double>(count - 1)) : 0;
  p.value = std::exp(mean);
  p.error = p.value * err;
  return p;
}

}  // namespace zen::model
