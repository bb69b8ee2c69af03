// Fused attention: q [D, T, Hq, S], k [D, L, Hkv, S'], v [Dv, L, Hkv, S'] (F32, F16, BF16 or
// Q8_0), optional mask [L, T' >= T, M2, M3] -> F32 [Dv, Hq, T, S], against a plain
// double-precision softmax(scale q.k (soft-capped) + mask) v written here.
//
// Conventions checked (sdk/include/zen/graph.h, zen_attention_params): query t sits at kv
// position pos0 + t; causal hides keys j > pos0 + t; a sliding window W hides keys
// j <= pos0 + t - W (gemma's rule: visible iff pos - W < j <= pos); the soft-cap applies to the
// scaled score before the mask is added; query head h reads kv head h / (Hq / Hkv); a row that
// sees no key at all (every key masked) outputs zeros.
//
// The reference uses the values the device reads (F16/BF16 K/V rounded, Q8_0 K/V dequantized
// from the blocks written here), so the only error is float arithmetic in the kernel:
//   - each score: a D-term float dot product, |error| <~ sqrt(D) * u * S where S bounds
//     |scale * q.k| (+ |mask|) over the row (soft-capping has slope <= 1, exp's few ulp
//     relative error are covered by the same term);
//   - the output is a convex combination of |v| <= 1 values, so a score error d moves it by at
//     most ~2d, and the L-term float sums of weights and of weighted values add ~sqrt(L) * u.
// With u = 2^-24 and a factor 32 for "a few ulp" and the random-walk constant:
//   atol = 32 u (sqrt(D) S + sqrt(L) + 1),
// e.g. 1.6e-5 for D = 128, S = 8, L = 128. A wrong mask, head mapping or merge errs by > 1e-2.
#include <bit>
#include <cmath>
#include <limits>

#include "op_harness.h"

namespace zen::ops {
namespace {

constexpr double kU = 1.0 / (1 << 24);

enum class MaskKind { None, F32, F16 };

struct Case {
  int64_t D = 64, Dv = 0, T = 1, L = 1, Hq = 1, Hkv = 1, S = 1, Skv = 0;
  zen_type qtype = ZEN_TYPE_F32, ktype = ZEN_TYPE_F32, vtype = ZEN_TYPE_F32;
  bool causal = false;
  int32_t window = 0;
  int64_t pos0 = -1;    // -1: left to the default (L - T)
  int64_t filled = -1;  // keys >= filled hold NaN (an unfilled cache); -1: all filled
  float scale = 0.0f;   // 0: the default 1 / sqrt(D)
  float softcap = 0.0f;
  float qrange = 1.0f;  // q uniform in [-qrange, qrange]
  MaskKind mask = MaskKind::None;
  int64_t mask_rows = 0;  // 0: T
  int64_t mask_heads = 1;
  double neg_inf_fraction = 0.0;     // mask entries set to -inf
  int64_t fully_masked_row = -1;     // a query row whose mask is -inf everywhere
  bool mask_hides_unfilled = false;  // the mask is -inf at every NaN key (>= filled)
  // A paged cache shared by paged_seqs sequences: key j lies in block j / 16, owned by sequence
  // (j / 16) % paged_seqs, or by all of them among the first shared_blocks blocks (a common
  // prefix); query row t is sequence t * paged_seqs / T's (its rows consecutive, as a batch of
  // decode tokens or prompt chunks) and the mask hides every key it does not own.
  int64_t paged_seqs = 0;
  int64_t shared_blocks = 0;
  bool permute_k = false;    // K stored [D, Hkv, L]: rows of one head are strided
  bool transpose_v = false;  // V stored [L, Dv, Hkv]: nb[0] != element size
  uint32_t seed = 1;
};

// ---- encodings written by the test (never the plugin's code) --------------------------------
struct Encoded {
  std::vector<uint8_t> bytes;
  std::vector<double> values;  // what the device reads back, per element
};

double bf16_bits_to_double(uint16_t b) {
  return std::bit_cast<float>(static_cast<uint32_t>(b) << 16);
}

// Rows of n elements (n % 32 == 0 for Q8_0), in order.
Encoded encode(zen_type t, const std::vector<float>& x, int64_t n) {
  Encoded e;
  e.values.resize(x.size());
  if (t == ZEN_TYPE_F32) {
    e.bytes = HostData::of(x).bytes;
    for (size_t i = 0; i < x.size(); ++i) e.values[i] = x[i];
  } else if (t == ZEN_TYPE_F16) {
    auto h = to_f16_bits(x);
    e.bytes = HostData::of(h).bytes;
    for (size_t i = 0; i < x.size(); ++i) e.values[i] = f16_bits_to_float(h[i]);
  } else if (t == ZEN_TYPE_BF16) {
    auto h = to_bf16_bits(x);
    e.bytes = HostData::of(h).bytes;
    for (size_t i = 0; i < x.size(); ++i) e.values[i] = bf16_bits_to_double(h[i]);
  } else {  // Q8_0: blocks of (half d, int8 q[32]), x = d * q
    EXPECT_EQ(t, ZEN_TYPE_Q8_0);
    EXPECT_EQ(n % 32, 0);
    for (size_t b = 0; b < x.size() / 32; ++b) {
      float amax = 0.0f;
      for (int i = 0; i < 32; ++i) amax = std::max(amax, std::fabs(x[b * 32 + i]));
      const uint16_t dh = to_f16_bits({amax / 127.0f})[0];
      const float d = f16_bits_to_float(dh);
      e.bytes.push_back(static_cast<uint8_t>(dh & 0xff));
      e.bytes.push_back(static_cast<uint8_t>(dh >> 8));
      for (int i = 0; i < 32; ++i) {
        const float qf = d > 0.0f ? std::nearbyint(x[b * 32 + i] / d) : 0.0f;
        const int8_t q = static_cast<int8_t>(std::clamp(qf, -127.0f, 127.0f));
        e.bytes.push_back(static_cast<uint8_t>(q));
        e.values[b * 32 + i] = static_cast<double>(d) * q;
      }
    }
  }
  return e;
}

class Attention : public OpTest {
 protected:
  void check(Case c) {
    if (c.Dv == 0) c.Dv = c.D;
    if (c.Skv == 0) c.Skv = c.S;
    if (c.mask_rows == 0) c.mask_rows = c.T;
    const int64_t pos0 = c.pos0 >= 0 ? c.pos0 : std::max<int64_t>(c.L - c.T, 0);
    const float scale = c.scale > 0.0f ? c.scale : 1.0f / std::sqrt(static_cast<float>(c.D));
    const int64_t D = c.D, Dv = c.Dv, T = c.T, L = c.L, Hq = c.Hq, Hkv = c.Hkv, S = c.S,
                  Skv = c.Skv;

    // Logical values: q[s][h][t][i], k[s][h][j][i], v[s][h][j][i].
    auto qv = random_floats(D * T * Hq * S, c.seed, -c.qrange, c.qrange);
    auto kv = random_floats(D * L * Hkv * Skv, c.seed + 1);
    auto vv = random_floats(Dv * L * Hkv * Skv, c.seed + 2);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    if (c.filled >= 0)
      for (int64_t s = 0; s < Skv; ++s)
        for (int64_t h = 0; h < Hkv; ++h)
          for (int64_t j = c.filled; j < L; ++j) {
            for (int64_t i = 0; i < D; ++i) kv[((s * Hkv + h) * L + j) * D + i] = nan;
            for (int64_t i = 0; i < Dv; ++i) vv[((s * Hkv + h) * L + j) * Dv + i] = nan;
          }

    // Physical layouts.
    std::vector<float> kp = kv, vp = vv;
    if (c.permute_k)  // [D, Hkv, L, Skv]
      for (int64_t s = 0; s < Skv; ++s)
        for (int64_t h = 0; h < Hkv; ++h)
          for (int64_t j = 0; j < L; ++j)
            for (int64_t i = 0; i < D; ++i)
              kp[((s * L + j) * Hkv + h) * D + i] = kv[((s * Hkv + h) * L + j) * D + i];
    if (c.transpose_v)  // [L, Dv, Hkv, Skv]
      for (int64_t s = 0; s < Skv; ++s)
        for (int64_t h = 0; h < Hkv; ++h)
          for (int64_t j = 0; j < L; ++j)
            for (int64_t i = 0; i < Dv; ++i)
              vp[((s * Hkv + h) * Dv + i) * L + j] = vv[((s * Hkv + h) * L + j) * Dv + i];
    Encoded qe = encode(c.qtype, qv, D), ke = encode(c.ktype, kp, D),
            ve = encode(c.vtype, vp, c.transpose_v ? L : Dv);
    // Decoded values back in logical order.
    std::vector<double> kd(kv.size()), vd(vv.size());
    for (int64_t s = 0; s < Skv; ++s)
      for (int64_t h = 0; h < Hkv; ++h)
        for (int64_t j = 0; j < L; ++j) {
          for (int64_t i = 0; i < D; ++i)
            kd[((s * Hkv + h) * L + j) * D + i] =
                ke.values[c.permute_k ? ((s * L + j) * Hkv + h) * D + i
                                      : ((s * Hkv + h) * L + j) * D + i];
          for (int64_t i = 0; i < Dv; ++i)
            vd[((s * Hkv + h) * L + j) * Dv + i] =
                ve.values[c.transpose_v ? ((s * Hkv + h) * Dv + i) * L + j
                                        : ((s * Hkv + h) * L + j) * Dv + i];
        }

    // Mask [L, mask_rows, mask_heads, 1].
    std::vector<float> mv;
    std::vector<double> md;
    Encoded me;
    if (c.mask != MaskKind::None) {
      mv = random_floats(L * c.mask_rows * c.mask_heads, c.seed + 3, -3.0f, 0.5f);
      std::mt19937 rng(c.seed + 4);
      std::uniform_real_distribution<double> u01(0.0, 1.0);
      for (int64_t h = 0; h < c.mask_heads; ++h)
        for (int64_t t = 0; t < c.mask_rows; ++t)
          for (int64_t j = 0; j < L; ++j) {
            float& m = mv[(h * c.mask_rows + t) * L + j];
            const bool foreign = c.paged_seqs > 0 && j / 16 >= c.shared_blocks &&
                                 (j / 16) % c.paged_seqs != t * c.paged_seqs / c.T;
            if (u01(rng) < c.neg_inf_fraction || t == c.fully_masked_row || foreign ||
                (c.mask_hides_unfilled && c.filled >= 0 && j >= c.filled))
              m = -std::numeric_limits<float>::infinity();
          }
      me = encode(c.mask == MaskKind::F16 ? ZEN_TYPE_F16 : ZEN_TYPE_F32, mv, L);
      md = me.values;
    }

    // Reference.
    std::vector<double> want(Dv * Hq * T * S, 0.0);
    double smax = 1.0;
    std::vector<double> sc(L);
    for (int64_t s = 0; s < S; ++s)
      for (int64_t h = 0; h < Hq; ++h)
        for (int64_t t = 0; t < T; ++t) {
          const int64_t hk = h / (Hq / Hkv), sk = s % Skv, qpos = pos0 + t;
          const double* qrow = nullptr;
          std::vector<double> qd(D);
          for (int64_t i = 0; i < D; ++i) qd[i] = qe.values[((s * Hq + h) * T + t) * D + i];
          qrow = qd.data();
          double mx = -INFINITY;
          for (int64_t j = 0; j < L; ++j) {
            sc[j] = -INFINITY;
            if (c.causal && j > qpos) continue;
            if (c.window > 0 && j <= qpos - c.window) continue;
            const double* krow = &kd[((sk * Hkv + hk) * L + j) * D];
            double x = 0;
            for (int64_t i = 0; i < D; ++i) x += qrow[i] * krow[i];
            x *= scale;
            double mterm = 0;
            if (c.mask != MaskKind::None)
              mterm = md[((h % c.mask_heads) * c.mask_rows + t) * L + j];
            if (std::isinf(mterm)) continue;
            smax = std::max(smax, std::fabs(x) + std::fabs(mterm));
            if (c.softcap > 0.0f) x = c.softcap * std::tanh(x / c.softcap);
            sc[j] = x + mterm;
            mx = std::max(mx, sc[j]);
          }
          if (std::isinf(mx)) continue;  // nothing visible: zeros
          double sum = 0;
          double* o = &want[((s * T + t) * Hq + h) * Dv];
          for (int64_t j = 0; j < L; ++j) {
            if (std::isinf(sc[j])) continue;
            const double w = std::exp(sc[j] - mx);
            sum += w;
            for (int64_t i = 0; i < Dv; ++i) o[i] += w * vd[((sk * Hkv + hk) * L + j) * Dv + i];
          }
          for (int64_t i = 0; i < Dv; ++i) o[i] /= sum;
        }

    // Graph.
    graph::Graph g;
    auto q = g.input("q", c.qtype, std::array<int64_t, 4>{D, T, Hq, S});
    graph::TensorId k, v;
    if (c.permute_k) {
      auto kin = g.input("k", c.ktype, std::array<int64_t, 4>{D, Hkv, L, Skv});
      k = g.permute(kin, {0, 2, 1, 3});
    } else {
      k = g.input("k", c.ktype, std::array<int64_t, 4>{D, L, Hkv, Skv});
    }
    if (c.transpose_v) {
      auto vin = g.input("v", c.vtype, std::array<int64_t, 4>{L, Dv, Hkv, Skv});
      v = g.permute(vin, {1, 0, 2, 3});
    } else {
      v = g.input("v", c.vtype, std::array<int64_t, 4>{Dv, L, Hkv, Skv});
    }
    std::vector<graph::TensorId> srcs{q, k, v};
    std::map<std::string, HostData> in{{"q", {qe.bytes}}, {"k", {ke.bytes}}, {"v", {ve.bytes}}};
    if (c.mask != MaskKind::None) {
      srcs.push_back(g.input("mask", c.mask == MaskKind::F16 ? ZEN_TYPE_F16 : ZEN_TYPE_F32,
                             std::array<int64_t, 4>{L, c.mask_rows, c.mask_heads, 1}));
      in["mask"] = {me.bytes};
    }
    const std::array<int32_t, 5> params{std::bit_cast<int32_t>(scale),
                                        std::bit_cast<int32_t>(c.softcap), c.causal ? 1 : 0,
                                        c.window, static_cast<int32_t>(pos0)};
    g.output(g.op(ZEN_OP_ATTENTION, srcs, params), "o");
    auto out = run(std::move(g), in, "o");

    const double atol =
        32 * kU *
        (std::sqrt(static_cast<double>(D)) * smax + std::sqrt(static_cast<double>(L)) + 1);
    expect_close(out, want, atol, 0.0,
                 "D " + std::to_string(D) + " T " + std::to_string(T) + " L " + std::to_string(L) +
                     " Hq/Hkv " + std::to_string(Hq) + "/" + std::to_string(Hkv));
  }
};

// ---- prefill ---------------------------------------------------------------------------------
TEST_P(Attention, OneQueryOneKey) { check({.D = 64, .T = 1, .L = 1}); }

TEST_P(Attention, Prefill7Causal) { check({.D = 64, .T = 7, .L = 7, .causal = true}); }

TEST_P(Attention, Prefill33CausalMqa) {
  check({.D = 80, .T = 33, .L = 33, .Hq = 4, .Hkv = 1, .causal = true, .qrange = 3.0f});
}

TEST_P(Attention, Prefill128CausalGqa4to1) {
  check({.D = 128, .T = 128, .L = 128, .Hq = 8, .Hkv = 2, .causal = true, .qrange = 3.0f});
}

TEST_P(Attention, Prefill33NonCausalHead256) {
  check({.D = 256, .T = 33, .L = 33, .Hq = 2, .Hkv = 1, .qrange = 2.0f});
}

TEST_P(Attention, HeadDims) {
  for (int64_t d : {64, 80, 128, 256})
    check({.D = d, .T = 9, .L = 9, .Hq = 2, .Hkv = 1, .causal = true, .qrange = 2.0f});
}

TEST_P(Attention, ValueDimDiffersOddDims) {
  check({.D = 72, .Dv = 40, .T = 5, .L = 13, .Hq = 3, .Hkv = 1, .causal = true});
  check({.D = 3, .Dv = 5, .T = 2, .L = 3});
}

TEST_P(Attention, Batches) {
  check({.D = 64, .T = 5, .L = 9, .Hq = 4, .Hkv = 2, .S = 2, .causal = true});
  check({.D = 64, .T = 5, .L = 9, .Hq = 2, .Hkv = 2, .S = 3, .Skv = 1, .causal = true});
}

// ---- decode: few query rows against a long KV (split-KV path for 1..3 rows) ------------------
TEST_P(Attention, DecodeSweepKvLength) {
  for (int64_t n : {1, 2, 31, 33, 64, 65, 127, 129, 255, 256, 257, 500, 1000}) {
    check({.D = 128, .T = 1, .L = n, .Hq = 1, .Hkv = 1, .causal = true, .qrange = 3.0f});
    check({.D = 64, .T = 1, .L = n, .Hq = 2, .Hkv = 1, .causal = true, .qrange = 3.0f});
    check({.D = 64, .T = 1, .L = n, .Hq = 8, .Hkv = 2, .causal = true, .qrange = 3.0f});
  }
}

// Split-K with GQA groups (the Vulkan device's attention_sg.comp serves up to 4 query heads
// per kv head in one job): KV lengths that are not a multiple of the 32-key parts that
// ZEN_VULKAN_ATTENTION=split takes, ratios 3 and 4, and 6 (a group of 4 and a remainder of 2).
TEST_P(Attention, DecodeSplitPartsGqaGroups) {
  check({.D = 64, .T = 1, .L = 100, .Hq = 6, .Hkv = 2, .causal = true, .qrange = 3.0f});
  check({.D = 128, .T = 1, .L = 333, .Hq = 8, .Hkv = 2, .causal = true, .qrange = 3.0f});
  check({.D = 64, .T = 1, .L = 257, .Hq = 12, .Hkv = 2, .causal = true, .qrange = 3.0f});
  check({.D = 80, .Dv = 40, .T = 2, .L = 71, .Hq = 6, .Hkv = 1, .S = 2, .causal = true});
}

TEST_P(Attention, DecodeAgainstPartlyFilledCache) {
  // The cache holds 1000 slots, 601 filled; the rest is NaN and must not be read.
  check({.D = 64, .T = 1, .L = 1000, .causal = true, .pos0 = 600, .filled = 601});
  check(
      {.D = 64, .T = 1, .L = 1000, .Hq = 8, .Hkv = 2, .causal = true, .pos0 = 600, .filled = 601});
  // A chunk of 3 queries at positions 250..252 of a 300-slot cache.
  check({.D = 64, .T = 3, .L = 300, .Hq = 2, .Hkv = 1, .causal = true, .pos0 = 250, .filled = 253});
}

TEST_P(Attention, DecodeMqaF16) {
  check({.D = 128,
         .T = 1,
         .L = 777,
         .Hq = 8,
         .Hkv = 1,
         .ktype = ZEN_TYPE_F16,
         .vtype = ZEN_TYPE_F16,
         .causal = true,
         .qrange = 3.0f});
}

// ---- masks ------------------------------------------------------------------------------------
TEST_P(Attention, SlidingWindow16) {
  check({.D = 64, .T = 100, .L = 100, .Hq = 4, .Hkv = 2, .causal = true, .window = 16});
  check({.D = 64, .T = 1, .L = 1000, .causal = true, .window = 16, .qrange = 3.0f});
  check({.D = 64,
         .T = 4,
         .L = 700,
         .Hq = 2,
         .Hkv = 2,
         .causal = true,
         .window = 300,
         .pos0 = 500,
         .filled = 504});
}

TEST_P(Attention, MaskHidesOtherSequencesNaNKeys) {
  // A paged cache: the queries' own cells are a few, the rest belong to other sequences (NaN
  // here) and the mask hides them; nothing hidden may reach the output.
  check({.D = 64,
         .T = 4,
         .L = 1000,
         .Hq = 4,
         .Hkv = 1,
         .pos0 = 0,
         .filled = 96,
         .mask = MaskKind::F32,
         .neg_inf_fraction = 0.3,
         .mask_hides_unfilled = true});
  check({.D = 256,
         .T = 1,
         .L = 512,
         .Hq = 4,
         .Hkv = 1,
         .filled = 40,
         .softcap = 50.0f,
         .mask = MaskKind::F16,
         .mask_hides_unfilled = true});
}

// Batched decode and prompt chunks over a paged cache: each row sees its own interleaved
// blocks only, so rows of different sequences get work items of their own and walk only the
// 16-key chunks their masks open (rows of one sequence, or of a shared prefix, share them).
TEST_P(Attention, PagedCacheRowsOfManySequences) {
  // One decode row per sequence, GQA.
  check({.D = 64, .T = 8, .L = 768, .Hq = 4, .Hkv = 2, .mask = MaskKind::F32, .paged_seqs = 8});
  // Three prompt chunks of four rows after a two-block shared prefix, F16 mask, some holes.
  check({.D = 64,
         .T = 12,
         .L = 400,
         .Hq = 2,
         .Hkv = 1,
         .mask = MaskKind::F16,
         .neg_inf_fraction = 0.1,
         .paged_seqs = 3,
         .shared_blocks = 2});
  // Two long sequences: few items, so each row's keys are split in parts and merged.
  check({.D = 64, .T = 2, .L = 2048, .Hq = 4, .Hkv = 1, .mask = MaskKind::F32, .paged_seqs = 2});
  // A cache length that is not a whole number of blocks, causal on top.
  check({.D = 64,
         .T = 5,
         .L = 203,
         .Hq = 2,
         .Hkv = 2,
         .causal = true,
         .mask = MaskKind::F32,
         .paged_seqs = 5});
}

TEST_P(Attention, SoftCap50) {
  // Scores up to ~60 so the cap bends them.
  check({.D = 64,
         .T = 33,
         .L = 33,
         .Hq = 2,
         .Hkv = 1,
         .causal = true,
         .scale = 1.0f,
         .softcap = 50.0f,
         .qrange = 8.0f});
  check(
      {.D = 64, .T = 1, .L = 600, .causal = true, .scale = 1.0f, .softcap = 50.0f, .qrange = 8.0f});
}

TEST_P(Attention, ExplicitMaskF32) {
  check({.D = 64,
         .T = 7,
         .L = 20,
         .Hq = 2,
         .Hkv = 1,
         .mask = MaskKind::F32,
         .mask_rows = 9,
         .neg_inf_fraction = 0.3});
}

TEST_P(Attention, ExplicitMaskF16PerHeadWithCausal) {
  check({.D = 64,
         .T = 12,
         .L = 40,
         .Hq = 4,
         .Hkv = 2,
         .causal = true,
         .mask = MaskKind::F16,
         .mask_heads = 2,
         .neg_inf_fraction = 0.2});
}

TEST_P(Attention, FullyMaskedRowOutputsZeros) {
  check(
      {.D = 64, .T = 5, .L = 20, .Hq = 2, .Hkv = 1, .mask = MaskKind::F32, .fully_masked_row = 2});
  check({.D = 64, .T = 1, .L = 600, .mask = MaskKind::F32, .fully_masked_row = 0});  // split
  check({.D = 64, .T = 1, .L = 600, .Hq = 1, .mask = MaskKind::F16, .neg_inf_fraction = 0.999});
}

// ---- K/V storage types -------------------------------------------------------------------------
TEST_P(Attention, F16KeysValues) {
  check({.D = 128,
         .T = 33,
         .L = 33,
         .Hq = 4,
         .Hkv = 1,
         .ktype = ZEN_TYPE_F16,
         .vtype = ZEN_TYPE_F16,
         .causal = true,
         .qrange = 2.0f});
  check({.D = 80,
         .T = 1,
         .L = 1000,
         .ktype = ZEN_TYPE_F16,
         .vtype = ZEN_TYPE_F16,
         .causal = true,
         .qrange = 2.0f});
}

TEST_P(Attention, BF16KeysValues) {
  check({.D = 64,
         .T = 7,
         .L = 50,
         .Hq = 2,
         .Hkv = 2,
         .ktype = ZEN_TYPE_BF16,
         .vtype = ZEN_TYPE_BF16,
         .causal = true,
         .qrange = 2.0f});
}

TEST_P(Attention, Q8_0KeysValues) {
  check({.D = 128,
         .T = 33,
         .L = 33,
         .Hq = 4,
         .Hkv = 1,
         .ktype = ZEN_TYPE_Q8_0,
         .vtype = ZEN_TYPE_Q8_0,
         .causal = true,
         .qrange = 2.0f});
  check({.D = 256,
         .T = 1,
         .L = 1000,
         .Hq = 1,
         .Hkv = 1,
         .ktype = ZEN_TYPE_Q8_0,
         .vtype = ZEN_TYPE_Q8_0,
         .causal = true,
         .qrange = 2.0f});
  check({.D = 64,
         .T = 1,
         .L = 129,
         .Hq = 16,
         .Hkv = 8,
         .ktype = ZEN_TYPE_Q8_0,
         .vtype = ZEN_TYPE_Q8_0,
         .causal = true,
         .window = 50});
}

TEST_P(Attention, MixedTypes) {
  check({.D = 64,
         .T = 5,
         .L = 300,
         .Hq = 2,
         .Hkv = 1,
         .ktype = ZEN_TYPE_Q8_0,
         .vtype = ZEN_TYPE_F16,
         .causal = true});
  check({.D = 64,
         .T = 1,
         .L = 300,
         .qtype = ZEN_TYPE_F16,
         .ktype = ZEN_TYPE_F16,
         .vtype = ZEN_TYPE_Q8_0,
         .causal = true});
}

// ---- strided views: K rows of one head not adjacent, V transposed (nb[0] != element size) ----
TEST_P(Attention, PermutedKTransposedV) {
  check({.D = 64,
         .T = 6,
         .L = 37,
         .Hq = 4,
         .Hkv = 2,
         .causal = true,
         .permute_k = true,
         .transpose_v = true});
  check({.D = 64,
         .T = 1,
         .L = 400,
         .ktype = ZEN_TYPE_F16,
         .vtype = ZEN_TYPE_F16,
         .causal = true,
         .permute_k = true,
         .transpose_v = true});
  check({.D = 64,
         .T = 3,
         .L = 40,
         .Hq = 2,
         .Hkv = 2,
         .ktype = ZEN_TYPE_Q8_0,
         .causal = true,
         .permute_k = true});
}

ZEN_OP_TEST(Attention);

}  // namespace
}  // namespace zen::ops
