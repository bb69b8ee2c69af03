// Convolutions (conv1d, conv2d, conv_transpose1d), upsample and concat.
//
// Convolutions first bring the input and the weights to packed F32 in the node's scratch
// (skipped for a source that already is packed F32): every thread converts a share of rows,
// then all meet at a barrier. That handles F16/BF16 weights and strided views once, and leaves
// the main loops on unit-stride F32 rows the compiler vectorizes (an axpy per kernel tap:
// out[o] += w * x[o * stride + offset]). Threads split the output rows.
//
// Plan for speed on large images (the VAE's 3x3 convs over 128..512 channels): im2col tiles
// feeding the matmul family's F32 GEMM (or OpenBLAS for big shapes); this direct loop is the
// reference-quality path and stays for small and odd shapes.
#include <cmath>
#include <cstring>

#include "kernels.h"
#include "tensor_access.h"

namespace ZEN_CPU_NS {
namespace {

constexpr uint32_t F32 = ZEN_TYPE_F32, F16 = ZEN_TYPE_F16, BF16 = ZEN_TYPE_BF16, I32 = ZEN_TYPE_I32;

int64_t nelements(const zen_tensor& t) { return t.ne[0] * t.ne[1] * t.ne[2] * t.ne[3]; }

bool packed_f32(const zen_tensor& t) {
  if (t.type != F32) return false;
  uint64_t nb = sizeof(float);
  for (int d = 0; d < ZEN_MAX_DIMS; ++d) {
    if (t.ne[d] > 1 && t.nb[d] != nb) return false;
    nb *= static_cast<uint64_t>(t.ne[d]);
  }
  return true;
}

uint64_t align64(uint64_t n) { return (n + 63) & ~uint64_t{63}; }

// Bytes of scratch for a packed F32 copy of t (0 when t already is packed F32).
uint64_t pack_bytes(const zen_tensor& t) {
  return packed_f32(t) ? 0 : align64(static_cast<uint64_t>(nelements(t)) * sizeof(float));
}

template <class S>
void pack_rows(const char* base, const zen_tensor& t, float* out, int ith, int nth) {
  const Range r = share(rows(t), ith, nth);
  for (int64_t row = r.begin; row < r.end; ++row) {
    const RowIndex i = row_index(t, row);
    float* o = out + row * t.ne[0];
    const char* p = at(base, t, 0, i.i1, i.i2, i.i3);
    const int64_t nb0 = static_cast<int64_t>(t.nb[0]);
    for (int64_t i0 = 0; i0 < t.ne[0]; ++i0) o[i0] = load<S>(p + i0 * nb0);
  }
}

// Thread ith's share of converting t to packed F32 at `scratch` (or nothing when t is packed
// F32 already); returns where the packed data lives.
const float* packed(const char* base, const zen_tensor& t, char* scratch, int ith, int nth) {
  if (packed_f32(t)) return reinterpret_cast<const float*>(base);
  float* out = reinterpret_cast<float*>(scratch);
  switch (t.type) {
    case F32:
      pack_rows<float>(base, t, out, ith, nth);
      break;
    case F16:
      pack_rows<f16_t>(base, t, out, ith, nth);
      break;
    default:
      pack_rows<bf16_t>(base, t, out, ith, nth);
      break;
  }
  return out;
}

// Scratch for convolutions: packed copies of src0 (kernel) and src1 (input).
uint64_t conv_work(const zen_tensor&, const zen_tensor* const* src, int) {
  return pack_bytes(*src[0]) + pack_bytes(*src[1]);
}

struct ConvInputs {
  const float* w;  // packed kernel
  const float* x;  // packed input
};
ConvInputs pack_conv_inputs(const KernelArgs& a, int ith, int nth) {
  char* scratch = static_cast<char*>(a.work);
  const float* w = packed(a.s[0], *a.src[0], scratch, ith, nth);
  const float* x = packed(a.s[1], *a.src[1], scratch + pack_bytes(*a.src[0]), ith, nth);
  sync_threads(a);
  return {w, x};
}

// out[o] += w * x[o * stride + off] for every o in [0, n_out) whose input index is in [0, n_in).
inline void tap(float* out, int64_t n_out, const float* x, int64_t n_in, float w, int64_t stride,
                int64_t off) {
  // First o with o * stride + off >= 0, and one past the last with o * stride + off < n_in.
  const int64_t lo = off >= 0 ? 0 : (-off + stride - 1) / stride;
  const int64_t last = n_in - 1 - off;
  if (last < 0) return;
  const int64_t hi = std::min(n_out, last / stride + 1);
  if (stride == 1) {
    const float* xs = x + off;
    for (int64_t o = lo; o < hi; ++o) out[o] += w * xs[o];
  } else {
    for (int64_t o = lo; o < hi; ++o) out[o] += w * x[o * stride + off];
  }
}

// dst rows are packed F32 (a compute op's result): row pointer of dst row (i1, i2, i3).
inline float* dst_row(const KernelArgs& a, int64_t i1, int64_t i2, int64_t i3) {
  return reinterpret_cast<float*>(at(a.d, *a.dst, 0, i1, i2, i3));
}

// conv1d: kernel [K, Cin, Cout], x [L, Cin, N] -> [OL, Cout, N]; params stride, pad, dilation.
void conv1d(const KernelArgs& a, int ith, int nth) {
  const zen_tensor &dst = *a.dst, &kt = *a.src[0], &xt = *a.src[1];
  const ConvInputs in = pack_conv_inputs(a, ith, nth);
  const int64_t s = dst.params[0], p = dst.params[1], dl = dst.params[2];
  const int64_t K = kt.ne[0], cin = kt.ne[1], L = xt.ne[0], OL = dst.ne[0];
  const Range r = share(dst.ne[1] * dst.ne[2], ith, nth);
  for (int64_t row = r.begin; row < r.end; ++row) {
    const int64_t oc = row % dst.ne[1], n = row / dst.ne[1];
    float* out = dst_row(a, oc, n, 0);
    std::fill(out, out + OL, 0.0f);
    for (int64_t ic = 0; ic < cin; ++ic) {
      const float* x = in.x + (n * cin + ic) * L;
      const float* w = in.w + (oc * cin + ic) * K;
      for (int64_t k = 0; k < K; ++k) tap(out, OL, x, L, w[k], s, k * dl - p);
    }
  }
}

// conv2d: kernel [KW, KH, Cin, Cout], x [W, H, Cin, N] -> [OW, OH, Cout, N];
// params s0, s1, p0, p1, d0, d1. Threads split output rows (oy, oc, n).
void conv2d(const KernelArgs& a, int ith, int nth) {
  const zen_tensor &dst = *a.dst, &kt = *a.src[0], &xt = *a.src[1];
  const ConvInputs in = pack_conv_inputs(a, ith, nth);
  const int64_t s0 = dst.params[0], s1 = dst.params[1], p0 = dst.params[2], p1 = dst.params[3],
                d0 = dst.params[4], d1 = dst.params[5];
  const int64_t KW = kt.ne[0], KH = kt.ne[1], cin = kt.ne[2];
  const int64_t W = xt.ne[0], H = xt.ne[1], OW = dst.ne[0], OH = dst.ne[1];
  const Range r = share(OH * dst.ne[2] * dst.ne[3], ith, nth);
  for (int64_t row = r.begin; row < r.end; ++row) {
    const int64_t oy = row % OH, oc = (row / OH) % dst.ne[2], n = row / (OH * dst.ne[2]);
    float* out = dst_row(a, oy, oc, n);
    std::fill(out, out + OW, 0.0f);
    for (int64_t ic = 0; ic < cin; ++ic) {
      const float* xplane = in.x + (n * cin + ic) * H * W;
      const float* wplane = in.w + (oc * cin + ic) * KH * KW;
      for (int64_t ky = 0; ky < KH; ++ky) {
        const int64_t iy = oy * s1 - p1 + ky * d1;
        if (iy < 0 || iy >= H) continue;
        const float* x = xplane + iy * W;
        const float* w = wplane + ky * KW;
        for (int64_t kx = 0; kx < KW; ++kx) tap(out, OW, x, W, w[kx], s0, kx * d0 - p0);
      }
    }
  }
}

// conv_transpose1d: kernel [K, Cout, Cin], x [L, Cin, N] -> [OL, Cout, N] with
// out[l * stride + k * dilation - pad] += w[k, oc, ic] * x[l, ic]. Each thread owns whole
// output rows (oc, n), so the scatter needs no synchronisation.
void conv_transpose1d(const KernelArgs& a, int ith, int nth) {
  const zen_tensor &dst = *a.dst, &kt = *a.src[0], &xt = *a.src[1];
  const ConvInputs in = pack_conv_inputs(a, ith, nth);
  const int64_t s = dst.params[0], p = dst.params[1], dl = dst.params[2];
  const int64_t K = kt.ne[0], cout = kt.ne[1], cin = kt.ne[2], L = xt.ne[0], OL = dst.ne[0];
  const Range r = share(dst.ne[1] * dst.ne[2], ith, nth);
  for (int64_t row = r.begin; row < r.end; ++row) {
    const int64_t oc = row % dst.ne[1], n = row / dst.ne[1];
    float* out = dst_row(a, oc, n, 0);
    std::fill(out, out + OL, 0.0f);
    for (int64_t ic = 0; ic < cin; ++ic) {
      const float* x = in.x + (n * cin + ic) * L;
      const float* w = in.w + (ic * cout + oc) * K;
      for (int64_t k = 0; k < K; ++k) {
        const int64_t off = k * dl - p;  // output index of input l is l * s + off
        const int64_t lo = off >= 0 ? 0 : (-off + s - 1) / s;
        const int64_t last = OL - 1 - off;
        if (last < 0) continue;
        const int64_t hi = std::min(L, last / s + 1);
        const float wk = w[k];
        if (s == 1) {
          for (int64_t l = lo; l < hi; ++l) out[l + off] += wk * x[l];
        } else {
          for (int64_t l = lo; l < hi; ++l) out[l * s + off] += wk * x[l];
        }
      }
    }
  }
}

// upsample: a [W, H, C, N] float -> F32 target shape. Mode 0 nearest in all four dims
// (source index floor(o * in / out)); mode 1 bilinear in W and H with half-pixel centres
// (PyTorch align_corners=False: src = max(0, (o + 0.5) * in / out - 0.5)), nearest in C and N.
template <class S>
void upsample(const KernelArgs& a, int ith, int nth) {
  const zen_tensor &dst = *a.dst, &src = *a.src[0];
  const bool bilinear = dst.params[4] == 1;
  const Range r = share(rows(dst), ith, nth);
  const int64_t nb0 = static_cast<int64_t>(src.nb[0]);
  for (int64_t row = r.begin; row < r.end; ++row) {
    const RowIndex i = row_index(dst, row);
    const int64_t j2 = i.i2 * src.ne[2] / dst.ne[2], j3 = i.i3 * src.ne[3] / dst.ne[3];
    float* out = dst_row(a, i.i1, i.i2, i.i3);
    if (!bilinear) {
      const char* p = at(a.s[0], src, 0, i.i1 * src.ne[1] / dst.ne[1], j2, j3);
      for (int64_t o = 0; o < dst.ne[0]; ++o)
        out[o] = load<S>(p + (o * src.ne[0] / dst.ne[0]) * nb0);
      continue;
    }
    auto coord = [](int64_t o, int64_t n_in, int64_t n_out, int64_t& c0, int64_t& c1, float& t) {
      double x =
          (static_cast<double>(o) + 0.5) * static_cast<double>(n_in) / static_cast<double>(n_out) -
          0.5;
      if (x < 0) x = 0;
      c0 = std::min(static_cast<int64_t>(x), n_in - 1);
      c1 = std::min(c0 + 1, n_in - 1);
      t = static_cast<float>(x - static_cast<double>(c0));
    };
    int64_t y0, y1;
    float ty;
    coord(i.i1, src.ne[1], dst.ne[1], y0, y1, ty);
    const char* r0 = at(a.s[0], src, 0, y0, j2, j3);
    const char* r1 = at(a.s[0], src, 0, y1, j2, j3);
    for (int64_t o = 0; o < dst.ne[0]; ++o) {
      int64_t x0, x1;
      float tx;
      coord(o, src.ne[0], dst.ne[0], x0, x1, tx);
      const float a00 = load<S>(r0 + x0 * nb0), a01 = load<S>(r0 + x1 * nb0);
      const float a10 = load<S>(r1 + x0 * nb0), a11 = load<S>(r1 + x1 * nb0);
      const float top = a00 + (a01 - a00) * tx, bottom = a10 + (a11 - a10) * tx;
      out[o] = top + (bottom - top) * ty;
    }
  }
}

// concat of 2..6 same-typed sources along params[0]; element size E bytes. Rows of dst are
// packed; sources may be any views.
template <size_t E>
void concat(const KernelArgs& a, int ith, int nth) {
  const zen_tensor& dst = *a.dst;
  const int dim = dst.params[0];
  const Range r = share(rows(dst), ith, nth);
  for (int64_t row = r.begin; row < r.end; ++row) {
    const RowIndex i = row_index(dst, row);
    char* out = at(a.d, dst, 0, i.i1, i.i2, i.i3);
    int64_t idx[4] = {0, i.i1, i.i2, i.i3};
    // Which source holds this row (for dim > 0), with the index shifted into it.
    int j = 0;
    if (dim > 0) {
      while (j + 1 < ZEN_MAX_SRC && a.src[j + 1] && idx[dim] >= a.src[j]->ne[dim]) {
        idx[dim] -= a.src[j]->ne[dim];
        ++j;
      }
    }
    for (; j < ZEN_MAX_SRC && a.src[j]; ++j) {
      const zen_tensor& s = *a.src[j];
      const char* p = at(a.s[j], s, 0, idx[1], idx[2], idx[3]);
      if (s.nb[0] == E) {
        std::memcpy(out, p, static_cast<size_t>(s.ne[0]) * E);
      } else {
        for (int64_t i0 = 0; i0 < s.ne[0]; ++i0)
          std::memcpy(out + i0 * E, p + i0 * static_cast<int64_t>(s.nb[0]), E);
      }
      if (dim > 0) break;  // the whole row came from this source
      out += s.ne[0] * static_cast<int64_t>(E);
    }
  }
}

constexpr KernelEntry kKernels[] = {
    // Kernel and input are F32, F16 or BF16 (checked by shape inference), packed on entry.
    {ZEN_OP_CONV1D, F32, kAnyType, kAnyType, conv1d, conv_work},
    {ZEN_OP_CONV2D, F32, kAnyType, kAnyType, conv2d, conv_work},
    {ZEN_OP_CONV_TRANSPOSE1D, F32, kAnyType, kAnyType, conv_transpose1d, conv_work},
    {ZEN_OP_UPSAMPLE, F32, F32, kNoSrc, upsample<float>},
    {ZEN_OP_UPSAMPLE, F32, F16, kNoSrc, upsample<f16_t>},
    {ZEN_OP_UPSAMPLE, F32, BF16, kNoSrc, upsample<bf16_t>},
    {ZEN_OP_CONCAT, F32, F32, F32, concat<4>},
    {ZEN_OP_CONCAT, I32, I32, I32, concat<4>},
    {ZEN_OP_CONCAT, F16, F16, F16, concat<2>},
    {ZEN_OP_CONCAT, BF16, BF16, BF16, concat<2>},
};

}  // namespace

std::span<const KernelEntry> conv_kernels() { return kKernels; }

}  // namespace ZEN_CPU_NS
