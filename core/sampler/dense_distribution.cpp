#include "sampler/dense_distribution.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "sampler/adjusted_logits.h"
#include "sampler/candidate_filters.h"
#include "sampler/portable_math.h"

namespace zen::sampling {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNegInf = -kInf;

typedef float f32x4 __attribute__((vector_size(16)));
typedef int32_t i32x4 __attribute__((vector_size(16)));
typedef double f64x2 __attribute__((vector_size(16)));

// Weights are summed in runs: a block of kBlock tokens splits into kLanes interleaved runs
// (run j holds the tokens at j, j + kLanes, ...), each summed in that order in double. The
// eight runs of a block are independent additions, so the sums keep up with the exp pass, and
// dense_draw can find its run from the sums and then walk that run adding the same way.
constexpr size_t kBlock = 256;
constexpr size_t kLanes = 8;

bool any_lane(i32x4 mask) {
  uint64_t halves[2];
  std::memcpy(halves, &mask, sizeof halves);
  return (halves[0] | halves[1]) != 0;
}

void zero_below(const float* logits, float floor, float* weights, size_t n) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    f32x4 l, w;
    std::memcpy(&l, logits + i, sizeof l);
    std::memcpy(&w, weights + i, sizeof w);
    w = l >= floor ? w : f32x4{} + 0.0f;
    std::memcpy(weights + i, &w, sizeof w);
  }
  for (; i < n; ++i) weights[i] = logits[i] >= floor ? weights[i] : 0.0f;
}

// The kLanes run sums of one block of n (<= kBlock) weights: four 2-lane accumulators kept in
// registers, one vector add per pair of tokens.
void sum_runs(const float* w, size_t n, double* sums) {
  static_assert(kLanes == 8);
  f64x2 s0 = {}, s1 = {}, s2 = {}, s3 = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    f32x4 a, b;
    std::memcpy(&a, w + i, sizeof a);
    std::memcpy(&b, w + i + 4, sizeof b);
    s0 += __builtin_convertvector(__builtin_shufflevector(a, a, 0, 1), f64x2);
    s1 += __builtin_convertvector(__builtin_shufflevector(a, a, 2, 3), f64x2);
    s2 += __builtin_convertvector(__builtin_shufflevector(b, b, 0, 1), f64x2);
    s3 += __builtin_convertvector(__builtin_shufflevector(b, b, 2, 3), f64x2);
  }
  const f64x2 lanes[] = {s0, s1, s2, s3};
  for (size_t v = 0; v < 4; ++v) {
    sums[2 * v] = lanes[v][0];
    sums[2 * v + 1] = lanes[v][1];
  }
  for (; i < n; ++i) sums[i % kLanes] += w[i];
}

// Appends the candidates (logit > -inf) with lower < key(logit) <= upper to out, in id order.
// key is evaluated on 4 lanes at once, 16 tokens per test: most groups hold no such token and
// cost a few vector operations.
template <class Key>
void gather_range(const DenseDistribution& d, Key key, float lower, float upper,
                  std::vector<Candidate>& out) {
  const float* l = d.logits.data();
  const size_t n = d.logits.size();
  auto in_range = [&](f32x4 v) {
    const f32x4 k = key(v);
    return (v > kNegInf) & (k > lower) & (k <= upper);
  };
  auto push_lanes = [&](size_t i, i32x4 in) {
    for (int lane = 0; lane < 4; ++lane) {
      if (in[lane])
        out.push_back({l[i + lane], static_cast<int32_t>(i + lane), d.weights[i + lane]});
    }
  };
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    f32x4 v[4];
    std::memcpy(v, l + i, sizeof v);
    const i32x4 in[4] = {in_range(v[0]), in_range(v[1]), in_range(v[2]), in_range(v[3])};
    if (!any_lane((in[0] | in[1]) | (in[2] | in[3]))) continue;
    for (size_t g = 0; g < 4; ++g) push_lanes(i + 4 * g, in[g]);
  }
  for (; i < n; ++i) {
    const float k = key(l[i]);
    if (l[i] > kNegInf && k > lower && k <= upper)
      out.push_back({l[i], static_cast<int32_t>(i), d.weights[i]});
  }
}

// Walks out[from..] adding weights to cum; cuts out after the first token where the sum passes
// target (strictly when `strict`) with at least min_keep tokens. True when it cut.
bool cut_at_target(std::vector<Candidate>& out, size_t from, double& cum, double target,
                   bool strict, size_t min_keep) {
  for (size_t i = from; i < out.size(); ++i) {
    cum += out[i].weight;
    if ((strict ? cum > target : cum >= target) && i + 1 >= min_keep) {
      out.resize(i + 1);
      return true;
    }
  }
  return false;
}

// Far from rounding: a sum this far below target cannot reach it in any other order.
bool clearly_below(double sum, double target) { return sum < target * (1.0 - 1e-9); }

// Moves the tokens of range (their keys > base) from `range` to out, up to the first token
// where cum passes target, in `order`. Without sorting the range: a histogram of its weight
// over 1/16-nat buckets of key finds the bucket where the sum crosses target; earlier buckets
// move over whole (in id order), and only the crossing bucket is sorted and walked (then the
// next, should rounding leave the walk short). True when it cut.
template <class Key, class Order>
bool cut_in_range(std::vector<Candidate>& range, float base, Key key, Order order, double& cum,
                  double target, bool strict, size_t min_keep, std::vector<Candidate>& out) {
  constexpr int kBuckets = 256;
  constexpr float kBucketsPerNat = 16.0f;
  auto bucket_of = [&](const Candidate& c) {
    const float scaled = (key(c.logit) - base) * kBucketsPerNat;
    return scaled < kBuckets - 1 ? static_cast<int>(scaled) : kBuckets - 1;
  };
  std::array<double, kBuckets> weight{};
  std::array<size_t, kBuckets> count{};
  for (const Candidate& c : range) {
    weight[bucket_of(c)] += c.weight;
    ++count[bucket_of(c)];
  }
  int crossing = 0;
  double before = cum;
  size_t kept = out.size();
  for (; crossing < kBuckets - 1; ++crossing) {
    const double after = before + weight[crossing];
    if (!clearly_below(after, target) && kept + count[crossing] >= min_keep) break;
    before = after;
    kept += count[crossing];
  }
  for (const Candidate& c : range) {
    if (bucket_of(c) < crossing) {
      out.push_back(c);
      cum += c.weight;
    }
  }
  for (int b = crossing; b < kBuckets; ++b) {
    const size_t from = out.size();
    for (const Candidate& c : range) {
      if (bucket_of(c) == b) out.push_back(c);
    }
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(from), out.end(), order);
    if (cut_at_target(out, from, cum, target, strict, min_keep)) return true;
  }
  return false;
}

// The tokens that come first under `order` until their weight passes target, at least
// min_keep of them, or every candidate if none does. key(logit) >= 0 must not decrease along
// `order`. Tokens are gathered by ranges of key (within 8 nats, within 16, the rest): a
// language model's cut nearly always falls in the first, which holds a few percent of the
// vocabulary at most. Ranges that cannot hold the cut are kept whole; the one that does is cut
// by cut_in_range.
template <class Key, class Order>
void keep_weight_prefix(const DenseDistribution& d, Key key, Order order, double target,
                        bool strict, size_t min_keep, std::vector<Candidate>& out,
                        std::vector<Candidate>& range) {
  static constexpr float kRangeEnds[] = {8.0f, 16.0f, kInf};
  out.clear();
  double cum = 0.0;
  float lower = -kInf;
  for (const float upper : kRangeEnds) {
    range.clear();
    gather_range(d, key, lower, upper, range);
    double range_weight = 0.0;
    for (const Candidate& c : range) range_weight += c.weight;
    if (upper != kInf &&
        (clearly_below(cum + range_weight, target) || out.size() + range.size() < min_keep)) {
      out.insert(out.end(), range.begin(), range.end());
      cum += range_weight;
      lower = upper;
      continue;
    }
    if (cut_in_range(range, std::max(lower, 0.0f), key, order, cum, target, strict, min_keep,
                     out)) {
      return;
    }
    lower = upper;
  }
}

}  // namespace

void DenseDistribution::compute_weights(float scale, float floor) {
  compute_weights({logits, {}}, max_logit, scale, floor);
}

void DenseDistribution::compute_weights(const AdjustedLogits& source, float max, float scale,
                                        float floor) {
  max_logit = max;
  const float* x = source.raw.data();
  const size_t n = source.raw.size();
  weights.resize(n);
  const size_t blocks = (n + kBlock - 1) / kBlock;
  run_sums.assign(blocks * kLanes, 0.0);
  auto override = source.overrides.begin();
  for (size_t b = 0; b < blocks; ++b) {
    const size_t begin = b * kBlock, end = std::min(n, begin + kBlock);
    float* w = weights.data();
    exp_shifted(x + begin, max, scale, w + begin, end - begin);  // NaN and -inf weigh 0
    if (floor > kNegInf) zero_below(x + begin, floor, w + begin, end - begin);
    for (; override != source.overrides.end() && static_cast<size_t>(override->id) < end;
         ++override) {
      const float l = override->logit;
      w[override->id] = l >= floor ? exp_nonpositive((l - max) * scale) : 0.0f;
    }
    sum_runs(w + begin, end - begin, run_sums.data() + b * kLanes);
  }
  total = 0.0;
  for (double s : run_sums) total += s;
}

void DenseDistribution::keep_infinite_only() {
  for (float& l : logits) l = l == kInf ? 0.0f : kNegInf;
  max_logit = 0.0f;
}

void dense_keep_typical(DenseDistribution& d, float p, size_t min_keep,
                        std::vector<Candidate>& out) {
  double weighted_d = 0.0;
  for (size_t i = 0; i < d.logits.size(); ++i) {
    if (d.weights[i] > 0.0f) {
      weighted_d += static_cast<double>(d.weights[i]) * (d.logits[i] - d.max_logit);
    }
  }
  const auto mean_d = static_cast<float>(weighted_d / d.total);
  const float m = d.max_logit;
  auto key = [=](auto logit) { return typical_distance(logit, m, mean_d); };
  auto closer = [=](const Candidate& a, const Candidate& b) {
    const float ka = key(a.logit), kb = key(b.logit);
    return ka < kb || (ka == kb && a.id < b.id);
  };
  keep_weight_prefix(d, key, closer, static_cast<double>(p) * d.total, /*strict=*/true, min_keep,
                     out, d.edge);
}

void dense_keep_top_p(DenseDistribution& d, float p, size_t min_keep, std::vector<Candidate>& out) {
  const double target = static_cast<double>(p) * d.total;
  const float m = d.max_logit;
  auto key = [=](auto logit) { return m - logit; };
  keep_weight_prefix(d, key, ranks_before, target, /*strict=*/false, min_keep, out, d.edge);
}

std::optional<float> dense_min_p_floor(const DenseDistribution& d, float p, size_t min_keep) {
  const float floor = d.max_logit + log_positive(p);
  if (min_keep > 1) {  // the top token always reaches the floor
    const auto reaching = static_cast<size_t>(
        std::count_if(d.logits.begin(), d.logits.end(), [&](float l) { return l >= floor; }));
    if (reaching < min_keep) return std::nullopt;
  }
  return floor;
}

int32_t dense_draw(const DenseDistribution& d, double u) {
  double remaining = u * d.total;
  for (size_t r = 0; r < d.run_sums.size(); ++r) {
    if (!(d.run_sums[r] > remaining)) {
      remaining -= d.run_sums[r];
      continue;
    }
    // Walking the run adds exactly as its sum did, ending at run_sums[r] > remaining.
    const size_t block = r / kLanes, lane = r % kLanes;
    const size_t end = std::min(d.weights.size(), (block + 1) * kBlock);
    double cum = 0.0;
    for (size_t i = block * kBlock + lane; i < end; i += kLanes) {
      cum += d.weights[i];
      if (cum > remaining) return static_cast<int32_t>(i);
    }
  }
  // Rounding carried the target past the end: the last token that has any weight.
  for (size_t i = d.weights.size(); i-- > 0;) {
    if (d.weights[i] > 0.0f) return static_cast<int32_t>(i);
  }
  return 0;
}

}  // namespace zen::sampling
