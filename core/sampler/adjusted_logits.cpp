#include "sampler/adjusted_logits.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace zen::sampling {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Explicit 4-lane vectors (SSE2/NEON, the baseline ISA): GCC does not vectorize a float max
// reduction on its own without -ffast-math. `a > m ? a : m` skips NaN like the scalar code.
typedef float f32x4 __attribute__((vector_size(16)));

f32x4 load4(const float* p) {
  f32x4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The largest of x[0..n), NaN ignored; -inf when there is none.
float max_of(const float* x, size_t n) {
  f32x4 m0 = {kNegInf, kNegInf, kNegInf, kNegInf};
  f32x4 m1 = m0;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const f32x4 a = load4(x + i);
    const f32x4 b = load4(x + i + 4);
    m0 = a > m0 ? a : m0;
    m1 = b > m1 ? b : m1;
  }
  m0 = m1 > m0 ? m1 : m0;
  float m = kNegInf;
  for (int lane = 0; lane < 4; ++lane) m = m0[lane] > m ? m0[lane] : m;
  for (; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

// Calls run(begin, end) for each stretch of raw values and one(override) in between, in
// ascending id order.
template <class Run, class One>
void visit(const AdjustedLogits& logits, Run&& run, One&& one) {
  size_t next = 0;
  for (const Override& o : logits.overrides) {
    run(next, static_cast<size_t>(o.id));
    one(o);
    next = static_cast<size_t>(o.id) + 1;
  }
  run(next, logits.raw.size());
}

// Keeps the k best-ranked offers; the front of the heap is the one that ranks last.
class TopKHeap {
 public:
  TopKHeap(size_t k, std::vector<Candidate>& storage) : k_(k), heap_(storage) {
    heap_.clear();
    heap_.reserve(k);
  }

  // Offers with a value not above this cannot enter: ids arrive in ascending order, so an
  // equal value would rank after everything already kept.
  float threshold() const { return threshold_; }

  void offer(float logit, int32_t id) {
    if (heap_.size() < k_) {
      heap_.push_back({logit, id, 0.0f});
      std::push_heap(heap_.begin(), heap_.end(), ranks_before);
      if (heap_.size() == k_) threshold_ = heap_.front().logit;
      return;
    }
    std::pop_heap(heap_.begin(), heap_.end(), ranks_before);
    heap_.back() = {logit, id, 0.0f};
    std::push_heap(heap_.begin(), heap_.end(), ranks_before);
    threshold_ = heap_.front().logit;
  }

  void finish() { std::sort_heap(heap_.begin(), heap_.end(), ranks_before); }

 private:
  size_t k_;
  std::vector<Candidate>& heap_;
  float threshold_ = kNegInf;
};

}  // namespace

Best argmax(const AdjustedLogits& logits) {
  // Block maxima first (vectorized), then the first index of the best block that holds it.
  constexpr size_t kBlock = 512;
  const float* x = logits.raw.data();
  Best best{kNegInf, -1};
  size_t best_begin = 0, best_end = 0;
  auto run = [&](size_t begin, size_t end) {
    for (size_t b = begin; b < end; b += kBlock) {
      const size_t e = std::min(end, b + kBlock);
      const float m = max_of(x + b, e - b);
      if (m > best.logit) {
        best.logit = m;
        best.id = -1;
        best_begin = b;
        best_end = e;
      }
    }
  };
  auto one = [&](const Override& o) {
    if (o.logit > best.logit) best = {o.logit, o.id};
  };
  visit(logits, run, one);
  if (best.id < 0 && best_end > best_begin) {
    for (size_t i = best_begin; i < best_end; ++i) {
      if (x[i] == best.logit) {
        best.id = static_cast<int32_t>(i);
        break;
      }
    }
  }
  return best;
}

void select_top_k(const AdjustedLogits& logits, size_t k, std::vector<Candidate>& out) {
  constexpr size_t kBlock = 64;
  const float* x = logits.raw.data();
  TopKHeap heap(k, out);
  auto run = [&](size_t begin, size_t end) {
    for (size_t b = begin; b < end; b += kBlock) {
      const size_t e = std::min(end, b + kBlock);
      if (!(max_of(x + b, e - b) > heap.threshold())) continue;
      for (size_t i = b; i < e; ++i) {
        if (x[i] > heap.threshold()) heap.offer(x[i], static_cast<int32_t>(i));
      }
    }
  };
  auto one = [&](const Override& o) {
    if (o.logit > heap.threshold()) heap.offer(o.logit, o.id);
  };
  visit(logits, run, one);
  heap.finish();
}

float copy_dense(const AdjustedLogits& logits, std::vector<float>& out) {
  out.resize(logits.raw.size());
  const float* x = logits.raw.data();
  float* y = out.data();
  const f32x4 neg_inf = {kNegInf, kNegInf, kNegInf, kNegInf};
  f32x4 m4 = neg_inf;
  float m = kNegInf;
  auto run = [&](size_t begin, size_t end) {
    size_t i = begin;
    for (; i + 4 <= end; i += 4) {
      f32x4 v = load4(x + i);
      v = v == v ? v : neg_inf;  // NaN -> -inf
      m4 = v > m4 ? v : m4;
      std::memcpy(y + i, &v, sizeof v);
    }
    for (; i < end; ++i) {
      const float v = x[i] == x[i] ? x[i] : kNegInf;
      m = v > m ? v : m;
      y[i] = v;
    }
  };
  auto one = [&](const Override& o) {
    y[o.id] = o.logit;
    m = o.logit > m ? o.logit : m;
  };
  visit(logits, run, one);
  for (int lane = 0; lane < 4; ++lane) m = m4[lane] > m ? m4[lane] : m;
  return m;
}

}  // namespace zen::sampling
