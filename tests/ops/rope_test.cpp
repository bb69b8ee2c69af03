// rope against a double reference written from the formulas:
//   theta_i = pos * base^(-2i / n_dims) (/ freq_factor_i), i < n_dims / 2
//   NORMAL rotates pairs (2i, 2i + 1), NEOX pairs (i, i + n_dims / 2); the rest is copied.
//   linear scaling: theta *= freq_scale.
//   YaRN: corr(b) = n_dims ln(ctx_orig / (2 pi b)) / (2 ln base), lo = max(0, floor(corr(fast))),
//         hi = min(n_dims - 1, ceil(corr(slow))), ramp_i = 1 - clamp((i - lo) / max(.001, hi - lo))
//         mix = ramp * ext_factor, theta = theta_interp (1 - mix) + theta_extrap mix,
//         magnitude attn_factor (1 + 0.1 ln(1 / freq_scale)).
//   multi-axis (M-RoPE): NEOX pairs; pair i's position is axis a's (positions [4 T]) where
//         sections[a] holds i % sum(sections); frequencies as above.
//   llama3: frequency factors from the piecewise rule (high frequencies kept, low ones divided
//         by the factor, a smooth blend between), passed as the optional third source.
//
// Tolerance: the kernel computes angles in double and rounds cos/sin to float, then rotates in
// float: |error| <= ~4 ulp of outputs |y| <= 1.2 * |x| <= 1.2 -> atol 2e-6 + rtol 1e-5.
// Positions go up to 1e5, where an angle computed in float would be off by ~1e-2.
#include <cmath>

#include "rows_util.h"

namespace zen::ops {
namespace {

struct Rope {
  int32_t n_dims = 0;
  int32_t mode = ZEN_ROPE_NORMAL;
  int32_t ctx_orig = 0;
  float base = 10000.0f, freq_scale = 1.0f, ext_factor = 0.0f, attn_factor = 1.0f;
  float beta_fast = 32.0f, beta_slow = 1.0f;
  std::vector<float> freq_factors;    // empty: none
  std::array<int32_t, 4> sections{};  // ZEN_ROPE_MROPE
};

// llama3's frequency factors (factor 8, low 1, high 4, original context 8192).
std::vector<float> llama3_factors(int n_dims, double base) {
  const double factor = 8.0, low = 1.0, high = 4.0, old_ctx = 8192.0;
  std::vector<float> ff(n_dims / 2);
  for (int i = 0; i < n_dims / 2; ++i) {
    const double freq = std::pow(base, -2.0 * i / n_dims), wavelen = 2.0 * M_PI / freq;
    double new_freq;
    if (wavelen < old_ctx / high) {
      new_freq = freq;
    } else if (wavelen > old_ctx / low) {
      new_freq = freq / factor;
    } else {
      const double smooth = (old_ctx / wavelen - low) / (high - low);
      new_freq = (1.0 - smooth) * freq / factor + smooth * freq;
    }
    ff[i] = static_cast<float>(freq / new_freq);
  }
  return ff;
}

class RopeTest : public OpTest {
 protected:
  // type F16/BF16: packed input of that type (layout ignored), output decoded from it.
  void check(Shape ne, const Rope& p, Layout layout, int32_t max_pos = 4096,
             zen_type type = ZEN_TYPE_F32) {
    graph::Graph g;
    auto v = random_floats(count(ne), 11, -1.0f, 1.0f);
    std::vector<uint16_t> halfbits;
    if (type != ZEN_TYPE_F32) halfbits = round_to_half(type, v);
    const bool multi = p.mode == ZEN_ROPE_MROPE;
    std::vector<int32_t> pos(multi ? 4 * ne[2] : ne[2]);  // multi: axis-major
    for (size_t t = 0; t < pos.size(); ++t)
      pos[t] = static_cast<int32_t>((t * 7919 + 3) % (max_pos + 1));
    HostData in;
    auto x =
        type == ZEN_TYPE_F32 ? strided_input(g, "x", ne, layout, v, in) : g.input("x", type, ne);
    if (type != ZEN_TYPE_F32) in = HostData::of(halfbits);
    auto pid =
        g.input("pos", ZEN_TYPE_I32, std::array<int64_t, 1>{static_cast<int64_t>(pos.size())});
    std::map<std::string, HostData> inputs{{"x", in}, {"pos", HostData::of(pos)}};
    const std::array<int32_t, ZEN_ROPE_N_PARAMS> params{p.n_dims,
                                                        p.mode,
                                                        p.ctx_orig,
                                                        f32_param(p.base),
                                                        f32_param(p.freq_scale),
                                                        f32_param(p.ext_factor),
                                                        f32_param(p.attn_factor),
                                                        f32_param(p.beta_fast),
                                                        f32_param(p.beta_slow),
                                                        p.sections[0],
                                                        p.sections[1],
                                                        p.sections[2],
                                                        p.sections[3]};
    if (p.freq_factors.empty()) {
      g.output(g.op(ZEN_OP_ROPE, std::array{x, pid}, params), "y");
    } else {
      auto f = g.input("ff", ZEN_TYPE_F32,
                       std::array<int64_t, 1>{static_cast<int64_t>(p.freq_factors.size())});
      inputs["ff"] = HostData::of(p.freq_factors);
      g.output(g.op(ZEN_OP_ROPE, std::array{x, pid, f}, params), "y");
    }
    auto out = type == ZEN_TYPE_F32 ? run(std::move(g), inputs, "y")
                                    : from_half(type, run_bytes(std::move(g), inputs, "y"));

    const int64_t half = p.n_dims / 2;
    const double nd = p.n_dims;
    double lo = 0.0, hi = 0.0, mscale = p.attn_factor;
    if (p.ext_factor != 0.0f) {
      auto corr = [&](double b) {
        return nd * std::log(p.ctx_orig / (2.0 * M_PI * b)) / (2.0 * std::log(double(p.base)));
      };
      lo = std::max(0.0, std::floor(corr(p.beta_fast)));
      hi = std::min(nd - 1.0, std::ceil(corr(p.beta_slow)));
      mscale *= 1.0 + 0.1 * std::log(1.0 / p.freq_scale);
    }
    std::vector<double> want(v.size());
    for (int64_t t = 0; t < ne[2]; ++t)
      for (int64_t h = 0; h < ne[1]; ++h) {
        for (int64_t i = 0; i < half; ++i) {
          double freq = std::pow(double(p.base), -2.0 * i / nd);
          if (!p.freq_factors.empty()) freq /= p.freq_factors[i];
          int axis = 0;  // multi-axis: the section holding i % sum(sections)
          if (multi) {
            int64_t sector = i % (p.sections[0] + p.sections[1] + p.sections[2] + p.sections[3]);
            while (axis < 3 && sector >= p.sections[axis]) sector -= p.sections[axis++];
          }
          const double extrap = pos[axis * ne[2] + t] * freq, interp = p.freq_scale * extrap;
          double theta = interp;
          if (p.ext_factor != 0.0f) {
            const double y = (i - lo) / std::max(0.001, hi - lo);
            const double mix = (1.0 - std::clamp(y, 0.0, 1.0)) * p.ext_factor;
            theta = interp * (1.0 - mix) + extrap * mix;
          }
          const bool pairs_apart = p.mode == ZEN_ROPE_NEOX || multi;
          const int64_t a = pairs_apart ? i : 2 * i;
          const int64_t b = pairs_apart ? i + half : 2 * i + 1;
          const double x0 = v[idx(ne, a, h, t, 0)], x1 = v[idx(ne, b, h, t, 0)];
          const double c = std::cos(theta) * mscale, s = std::sin(theta) * mscale;
          want[idx(ne, a, h, t, 0)] = x0 * c - x1 * s;
          want[idx(ne, b, h, t, 0)] = x0 * s + x1 * c;
        }
        for (int64_t i = p.n_dims; i < ne[0]; ++i)
          want[idx(ne, i, h, t, 0)] = v[idx(ne, i, h, t, 0)];
      }
    // F16/BF16: one rounding of the float result to the type.
    const double rtol = type == ZEN_TYPE_F16    ? 1.0 / 1024
                        : type == ZEN_TYPE_BF16 ? 1.0 / 128
                                                : 1e-5;
    expect_close(out, want, type == ZEN_TYPE_F32 ? 2e-6 : 1e-4, rtol,
                 std::string(p.mode == ZEN_ROPE_NEOX ? "neox " : "normal ") + layout_name(layout));
  }
};

Rope basic(int32_t n_dims, int32_t mode) {
  Rope p;
  p.n_dims = n_dims;
  p.mode = mode;
  return p;
}

TEST_P(RopeTest, NormalOneToken) {
  check({64, 1, 1, 1}, basic(64, ZEN_ROPE_NORMAL), Layout::packed);
}
TEST_P(RopeTest, NeoxOneToken) { check({128, 1, 1, 1}, basic(128, ZEN_ROPE_NEOX), Layout::packed); }
TEST_P(RopeTest, NormalManyRows) {
  check({128, 32, 9, 1}, basic(128, ZEN_ROPE_NORMAL), Layout::packed, 100000);
}
TEST_P(RopeTest, NeoxManyRows) {
  check({96, 17, 13, 1}, basic(96, ZEN_ROPE_NEOX), Layout::packed, 100000);
}
TEST_P(RopeTest, PartialNormal) {
  check({38, 3, 5, 1}, basic(14, ZEN_ROPE_NORMAL), Layout::packed);
}
TEST_P(RopeTest, PartialNeox) { check({70, 5, 4, 1}, basic(22, ZEN_ROPE_NEOX), Layout::packed); }
TEST_P(RopeTest, SmallestPair) { check({2, 1, 3, 1}, basic(2, ZEN_ROPE_NORMAL), Layout::packed); }
TEST_P(RopeTest, NormalTransposed) {
  check({32, 6, 5, 1}, basic(32, ZEN_ROPE_NORMAL), Layout::transposed);
}
TEST_P(RopeTest, NeoxTransposed) {
  check({24, 7, 3, 1}, basic(16, ZEN_ROPE_NEOX), Layout::transposed);
}
TEST_P(RopeTest, NeoxPadded) { check({64, 4, 6, 1}, basic(64, ZEN_ROPE_NEOX), Layout::padded); }
TEST_P(RopeTest, NormalPadded) { check({40, 3, 2, 1}, basic(40, ZEN_ROPE_NORMAL), Layout::padded); }
TEST_P(RopeTest, LinearScalingAndBase) {
  Rope p = basic(64, ZEN_ROPE_NEOX);
  p.base = 1000000.0f;
  p.freq_scale = 0.25f;
  check({64, 8, 7, 1}, p, Layout::packed, 30000);
}
TEST_P(RopeTest, YarnNeox) {
  Rope p = basic(64, ZEN_ROPE_NEOX);
  p.ctx_orig = 4096;
  p.freq_scale = 0.25f;
  p.ext_factor = 1.0f;
  p.attn_factor = 1.0f;
  check({64, 8, 9, 1}, p, Layout::packed, 16000);
}
TEST_P(RopeTest, YarnNormalPartialMix) {
  Rope p = basic(48, ZEN_ROPE_NORMAL);
  p.ctx_orig = 2048;
  p.freq_scale = 0.125f;
  p.ext_factor = 0.5f;
  p.attn_factor = 0.9f;
  p.beta_fast = 16.0f;
  p.beta_slow = 2.0f;
  check({56, 5, 6, 1}, p, Layout::transposed, 16000);
}
TEST_P(RopeTest, Llama3FrequencyFactors) {
  Rope p = basic(128, ZEN_ROPE_NORMAL);
  p.base = 500000.0f;
  p.freq_factors = llama3_factors(128, 500000.0);
  check({128, 8, 11, 1}, p, Layout::packed, 100000);
}
TEST_P(RopeTest, Llama3FrequencyFactorsNeox) {
  Rope p = basic(64, ZEN_ROPE_NEOX);
  p.base = 500000.0f;
  p.freq_factors = llama3_factors(64, 500000.0);
  check({80, 3, 5, 1}, p, Layout::padded, 50000);
}

TEST_P(RopeTest, HalfNeoxPartial) {
  check({40, 3, 4, 1}, basic(32, ZEN_ROPE_NEOX), Layout::packed, 3000, ZEN_TYPE_F16);
}
TEST_P(RopeTest, Bf16Normal) {
  check({24, 5, 3, 1}, basic(24, ZEN_ROPE_NORMAL), Layout::packed, 3000, ZEN_TYPE_BF16);
}
TEST_P(RopeTest, MultiAxis) {  // Qwen2-VL style sections over 64 pairs: 16 t, 24 h, 24 w
  Rope p = basic(128, ZEN_ROPE_MROPE);
  p.base = 1000000.0f;
  p.sections = {16, 24, 24, 0};
  check({128, 6, 7, 1}, p, Layout::packed, 5000);
}
TEST_P(RopeTest, MultiAxisRepeatingSectionsPartial) {  // 4 axes, sections repeat over 12 pairs
  Rope p = basic(24, ZEN_ROPE_MROPE);
  p.sections = {2, 1, 2, 1};
  check({30, 3, 5, 1}, p, Layout::transposed, 300);
}

ZEN_OP_TEST(RopeTest);

}  // namespace
}  // namespace zen::ops
