// matmul: dst [M, N, B2, B3] = a [K, M, A2, A3] x b [K, N, B2, B3], a broadcast over the batch
// dims. matmul_id: dst [M, U, T] with dst[:, u, t] = experts[:, :, ids[u, t]] x b[:, u or 0, t].
//
// Fast path (every weight type of matmul/vec_dot.h): the activations are converted once per
// node into the scratch (F32 rows for float weights, Q8 blocks of 32 or Q8_K blocks of 256 for
// quantized weights), each thread converting its share of the rows; after the barrier the
// threads split the output into tiles of (weight rows x activation columns). A tile's weight
// rows are sized to stay in L2 while every column group of the tile passes over them, and
// the types with a 4-column dot product load each weight block once per 4 columns. With N = 1
// (decode) the tiles are chunks of rows: the weights stream through once.
//
// Packed GEMM (matmul/gemm.h; the common quantized types on AVX2): 8-row x 4-column
// microkernels (8 columns with AVX-512 VNNI) over panels of 8 weight rows. A model weight's
// panels are the device's, packed once and kept (KernelArgs::packed), and serve every column
// count down to decode's one; another matrix's are packed, with enough columns, by each thread
// into its share of the scratch once per row tile (consecutive tiles of a thread share their
// rows, so once per thread).
//
// Reference path (float weights with strided rows, or no scratch): each output is one dot
// product accumulated in double (products of floats are exact in double).
#include <algorithm>
#include <cstddef>
#include <cstring>

#include "kernels.h"
#include "matmul/gemm.h"
#include "matmul/packed_weights.h"
#include "matmul/vec_dot.h"
#include "tensor_access.h"

namespace ZEN_CPU_NS {
namespace {

// The fused residual ADD of a matmul (zen/fusion.hpp matmul_add): sum = product + residual at
// outputs (m0..m1, n, i2, i3), which this thread has just written, as the ADD kernel computes
// them. Contiguous rows take a plain loop (per-element strided access was 5 % of a prefill).
void fused_add(const KernelArgs& ar, int64_t m0, int64_t m1, int64_t n, int64_t i2, int64_t i3) {
  const zen_tensor &dst = *ar.dst, &sum = *ar.fused, &res = *ar.fused_src;
  if (dst.nb[0] == sizeof(float) && sum.nb[0] == sizeof(float) && res.nb[0] == sizeof(float)) {
    const float* p = reinterpret_cast<const float*>(at(ar.d, dst, m0, n, i2, i3));
    const float* r = reinterpret_cast<const float*>(at(ar.fs, res, m0, n, i2, i3));
    float* o = reinterpret_cast<float*>(at(ar.fd, sum, m0, n, i2, i3));
    for (int64_t m = 0; m < m1 - m0; ++m) o[m] = p[m] + r[m];
    return;
  }
  for (int64_t m = m0; m < m1; ++m)
    store<float>(at(ar.fd, sum, m, n, i2, i3), load<float>(at(ar.d, dst, m, n, i2, i3)) +
                                                   load<float>(at(ar.fs, res, m, n, i2, i3)));
}

template <class A>
void matmul_ref(const KernelArgs& ar, int ith, int nth) {
  const zen_tensor &dst = *ar.dst, &a = *ar.src[0], &b = *ar.src[1];
  const int64_t K = a.ne[0], M = dst.ne[0];
  const int64_t r2 = b.ne[2] / a.ne[2], r3 = b.ne[3] / a.ne[3];
  // Work items are single outputs so a decode step (N = 1) still splits across threads.
  const Range r = share(M * rows(dst), ith, nth);
  for (int64_t u = r.begin; u < r.end; ++u) {
    const int64_t m = u % M;
    const RowIndex i = row_index(dst, u / M);  // (n, b2, b3)
    const char* arow = at(ar.s[0], a, 0, m, i.i2 / r2, i.i3 / r3);
    const char* bcol = at(ar.s[1], b, 0, i.i1, i.i2, i.i3);
    double acc = 0.0;
    for (int64_t k = 0; k < K; ++k)
      acc += static_cast<double>(load<A>(arow + k * static_cast<int64_t>(a.nb[0]))) *
             static_cast<double>(load<float>(bcol + k * static_cast<int64_t>(b.nb[0])));
    store<float>(at(ar.d, dst, m, i.i1, i.i2, i.i3), static_cast<float>(acc));
    if (ar.fused) fused_add(ar, m, m + 1, i.i1, i.i2, i.i3);
  }
}

constexpr uint64_t kAlign = 64;
inline uint64_t align_up(uint64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

// The fast path applies: a supported weight type whose rows are contiguous.
const mm::WeightType* fast_type(const zen_tensor& a) {
  const mm::WeightType* wt = mm::weight_type(a.type);
  if (!wt) return nullptr;
  if (wt->blck == 1 && a.nb[0] != wt->bytes) return nullptr;
  return wt;
}

uint64_t act_bytes(const mm::WeightType& wt, const zen_tensor& a, const zen_tensor& b) {
  return align_up(rows(b) * mm::act_row_bytes(wt.act, a.ne[0]));
}

constexpr int64_t kMaxTileRows = 64;

// The packed GEMM serves a product with this many activation columns: its weight type has one,
// and enough columns share each packed panel to repay packing (GemmType::min_columns).
const mm::GemmType* packed_gemm(const zen_tensor& a, int64_t columns, bool kept = false) {
  const mm::GemmType* g = mm::gemm_type(a.type);
  return g && columns >= (kept ? g->min_columns_kept : g->min_columns) ? g : nullptr;
}

// Scratch of one thread's panels: a row tile of up to kMaxTileRows rows (0 without a GEMM).
uint64_t panel_bytes_per_thread(const zen_tensor& a) {
  const mm::GemmType* g = mm::gemm_type(a.type);
  return g ? align_up(kMaxTileRows / mm::kPanelRows * g->panel_bytes(a.ne[0])) : 0;
}

// One thread's packed GEMM state: the weight's kept panels (the device's, when it is a
// weight), or its panel scratch and which rows that holds.
struct Panels {
  const mm::GemmType* type = nullptr;  // nullptr: the dot products
  mm::PackedMatrix* kept = nullptr;
  char* buf = nullptr;
  const char* w = nullptr;
  int64_t m0 = -1, m1 = -1;

  Panels(const zen_tensor& a, int64_t columns, void* scratch, int ith, mm::PackedMatrix* packed)
      : type(packed_gemm(a, columns, packed != nullptr)) {
    if (type && packed)
      kept = packed;
    else if (type)
      buf = static_cast<char*>(scratch) + ith * panel_bytes_per_thread(a);
  }
};

// Panel scratch of all threads for a product with `columns` activation columns.
uint64_t panel_bytes(const zen_tensor& a, int64_t columns, int nth) {
  return packed_gemm(a, columns) ? static_cast<uint64_t>(nth) * panel_bytes_per_thread(a) : 0;
}

// Converts rows [share of ith] of b into the scratch, one activation row each.
void convert_activations(const KernelArgs& ar, const mm::WeightType& wt, int ith, int nth) {
  const zen_tensor &a = *ar.src[0], &b = *ar.src[1];
  const int64_t K = a.ne[0];
  const size_t arb = mm::act_row_bytes(wt.act, K);
  const Range r = share(rows(b), ith, nth);
  for (int64_t row = r.begin; row < r.end; ++row) {
    const RowIndex i = row_index(b, row);
    mm::quantize_act(wt.act, at(ar.s[1], b, 0, i.i1, i.i2, i.i3), static_cast<int64_t>(b.nb[0]), K,
                     static_cast<char*>(ar.work) + row * arb);
  }
}

// Tile sizes: weight rows per tile so the tile's rows stay in L2 (~128 KiB) and the threads
// get several tiles each; activation columns per tile so their rows stay in L2 (~256 KiB).
struct Tiling {
  int64_t mb, nb;
};
Tiling tiling(int64_t M, int64_t N, size_t wrow, size_t arow, int nth) {
  int64_t mb = std::clamp<int64_t>(static_cast<int64_t>((128u << 10) / std::max<size_t>(wrow, 1)),
                                   4, kMaxTileRows);
  mb = std::min(mb, std::max<int64_t>(4, (M + 4 * nth - 1) / (4 * nth)));
  int64_t nb =
      std::clamp<int64_t>(static_cast<int64_t>((256u << 10) / std::max<size_t>(arow, 1)), 4, 64);
  nb = std::min(nb, N);
  return {std::max<int64_t>(mb, 1), std::max<int64_t>(nb, 1)};
}
// Row tiles in whole groups of 8 where the packed panels or the 8-row dot product take rows in
// eights: every row then goes the same way (group or tail) whatever the thread count.
Tiling row_tiling(const mm::WeightType& wt, const Panels& pn, int64_t K, int64_t M, int64_t N,
                  size_t arow, int nth) {
  Tiling t = tiling(M, N, static_cast<size_t>(K / wt.blck) * wt.bytes, arow, nth);
  static_assert(mm::kPanelRows == 8, "the panels and dot8 share the row groups");
  if (pn.type || wt.dot8) t.mb = (t.mb + 7) / 8 * 8;
  if (pn.type && pn.type->kernel16) t.mb = (t.mb + 15) / 16 * 16;  // panels in pairs
  return t;
}

// Two panels per kernel call (GemmType::kernel16) from this many columns. Below it the weights
// stream from memory with little work per byte and the 8-row kernel reads its one stream
// faster (zen-bench-matmul-avx512, one thread, K 1024 x M 3072, 8 rows against 16: GEMVkept
// Q4_0 57 against 86 us, Q6_K 77 against 100 us); from 4 columns 16 rows are even or ahead
// (BDkept Q4_K 94 against 70 us at 4 columns, 327 against 190 at 16).
constexpr int64_t kMinColumns16 = 4;

// The packed GEMM of tile(): panels outermost, so a panel stays in L1 while the tile's
// columns (in L2) pass over it. `slice` is the weight's matrix (dims 2 and 3 flattened).
template <class Out>
void tile_packed(Panels& pn, int64_t K, const char* w, size_t wrow, int64_t slice, int64_t m0,
                 int64_t m1, const void* const* act, int64_t n, Out out) {
  const mm::GemmType& g = *pn.type;
  const size_t pb = g.panel_bytes(K);
  const int64_t np = (m1 - m0 + mm::kPanelRows - 1) / mm::kPanelRows;
  auto panel_rows = [&](int64_t p) {
    return static_cast<int>(std::min<int64_t>(mm::kPanelRows, m1 - m0 - p * mm::kPanelRows));
  };
  if (!pn.kept && (pn.w != w || pn.m0 != m0 || pn.m1 != m1)) {
    for (int64_t p = 0; p < np; ++p)
      g.pack(K, w + (m0 + p * mm::kPanelRows) * wrow, wrow, panel_rows(p), pn.buf + p * pb);
    pn.w = w;
    pn.m0 = m0;
    pn.m1 = m1;
  }
  auto panel_at = [&](int64_t p) -> const char* {
    const int64_t r0 = m0 + p * mm::kPanelRows;
    return pn.kept ? static_cast<const char*>(pn.kept->panel(slice, r0 / mm::kPanelRows,
                                                             w + r0 * wrow, wrow, panel_rows(p)))
                   : pn.buf + p * pb;
  };
  alignas(64) float r[mm::kMaxGemmCols * 2 * mm::kPanelRows];
  for (int64_t p = 0; p < np;) {
    const int64_t r0 = m0 + p * mm::kPanelRows;
    const bool two = g.kernel16 && n >= kMinColumns16 && p + 1 < np;
    const int span = two ? 2 * mm::kPanelRows : mm::kPanelRows;
    const int rows = static_cast<int>(std::min<int64_t>(span, m1 - r0));
    const char* panel = panel_at(p);
    const ptrdiff_t next = two ? panel_at(p + 1) - panel : 0;
    for (int64_t c = 0; c < n; c += g.cols) {
      const int nc = static_cast<int>(std::min<int64_t>(g.cols, n - c));
      if (two)
        g.kernel16(K, panel, next, act + c, nc, r);
      else
        g.kernel(K, panel, act + c, nc, r);
      for (int j = 0; j < nc; ++j) {  // the column's rows are evenly spaced: one address each
        float* o = out(r0, c + j);
        const ptrdiff_t step = rows > 1 ? out(r0 + 1, c + j) - o : 1;
        for (int i = 0; i < rows; ++i) o[i * step] = r[span * j + i];
      }
    }
    p += two ? 2 : 1;
  }
}

// Weight rows [m0, m1) x the activation rows act[0..n): dst element for (m, c) at out(m, c).
template <class Out>
void tile(const mm::WeightType& wt, Panels& pn, int64_t K, const char* w, size_t wrow,
          int64_t slice, int64_t m0, int64_t m1, const void* const* act, int64_t n, Out out) {
  // A tile of 1-3 columns (a batch's tail) is cheaper through the dot products than packing.
  if (pn.type && (n >= 4 || pn.kept))
    return tile_packed(pn, K, w, wrow, slice, m0, m1, act, n, out);
  int64_t c = 0;
  if (wt.dot4) {
    // Two or three columns left (a batch of 2-3 decode rows): one 4-column pass with the last
    // column repeated costs less than a pass per column.
    for (; c + 1 < n; c += 4) {
      const int nc = static_cast<int>(std::min<int64_t>(4, n - c));
      const void* a4[4];
      for (int j = 0; j < 4; ++j) a4[j] = act[c + std::min(j, nc - 1)];
      for (int64_t m = m0; m < m1; ++m) {
        float r[4];
        wt.dot4(K, w + m * wrow, a4, r);
        for (int j = 0; j < nc; ++j) *out(m, c + j) = r[j];
      }
    }
  }
  for (; c < n; ++c) {
    int64_t m = m0;
    if (wt.dot8) {
      float r[8];
      for (; m + 8 <= m1; m += 8) {
        wt.dot8(K, w + m * wrow, wrow, act[c], r);
        for (int i = 0; i < 8; ++i) *out(m + i, c) = r[i];
      }
    }
    for (; m < m1; ++m) *out(m, c) = wt.dot(K, w + m * wrow, act[c]);
  }
}

void matmul_fast(const KernelArgs& ar, const mm::WeightType& wt, int ith, int nth) {
  const zen_tensor &dst = *ar.dst, &a = *ar.src[0], &b = *ar.src[1];
  const int64_t K = a.ne[0], M = a.ne[1], N = b.ne[1], B2 = b.ne[2], B3 = b.ne[3];
  const int64_t r2 = B2 / a.ne[2], r3 = B3 / a.ne[3];
  const size_t arb = mm::act_row_bytes(wt.act, K);
  const size_t wrow = static_cast<size_t>(a.nb[1]);

  convert_activations(ar, wt, ith, nth);
  sync_threads(ar);

  Panels pn(a, N, static_cast<char*>(ar.work) + act_bytes(wt, a, b), ith, ar.packed);
  const Tiling t = row_tiling(wt, pn, K, M, N, arb, nth);
  const int64_t mt = (M + t.mb - 1) / t.mb, nt = (N + t.nb - 1) / t.nb;
  // Units are row tiles (with all their column tiles, so a tile's packed panels serve every
  // column), taken from the node's cursor as threads become free, or in fixed shares.
  const int64_t units = B2 * B3 * mt;
  const Range r = share(units, ith, nth);
  const auto take = [&](int64_t u) {
    return ar.cursor ? ar.cursor->fetch_add(1, std::memory_order_relaxed) : u + 1;
  };
  const int64_t end = ar.cursor ? units : r.end;
  const void* act[64];
  for (int64_t unit = ar.cursor ? take(0) : r.begin; unit < end; unit = take(unit)) {
    const int64_t batch = unit / mt, ti = unit % mt;
    const int64_t i2 = batch % B2, i3 = batch / B2;
    const int64_t m0 = ti * t.mb, m1 = std::min(M, m0 + t.mb);
    const char* w = at(ar.s[0], a, 0, 0, i2 / r2, i3 / r3);
    for (int64_t tj = 0; tj < nt; ++tj) {
      const int64_t n0 = tj * t.nb, n = std::min(N, n0 + t.nb) - n0;
      for (int64_t c = 0; c < n; ++c)
        act[c] =
            static_cast<const char*>(ar.work) + ((batch * N) + n0 + c) * static_cast<int64_t>(arb);
      tile(wt, pn, K, w, wrow, (i3 / r3) * a.ne[2] + i2 / r2, m0, m1, act, n,
           [&](int64_t m, int64_t c) {
             return reinterpret_cast<float*>(at(ar.d, dst, m, n0 + c, i2, i3));
           });
      if (ar.fused)
        for (int64_t c = 0; c < n; ++c) fused_add(ar, m0, m1, n0 + c, i2, i3);
    }
  }
}

template <class A>
void matmul(const KernelArgs& ar, int ith, int nth) {
  const mm::WeightType* wt = fast_type(*ar.src[0]);
  if (wt && ar.work) return matmul_fast(ar, *wt, ith, nth);
  matmul_ref<A>(ar, ith, nth);
}
void matmul_q(const KernelArgs& ar, int ith, int nth) {
  const mm::WeightType* wt = fast_type(*ar.src[0]);
  if (wt && ar.work) matmul_fast(ar, *wt, ith, nth);
}

uint64_t matmul_work(const zen_tensor&, const zen_tensor* const* src, int nth) {
  const mm::WeightType* wt = fast_type(*src[0]);
  if (!wt) return 0;
  return act_bytes(*wt, *src[0], *src[1]) + panel_bytes(*src[0], src[1]->ne[1], nth);
}

// ---- matmul_id -----------------------------------------------------------------------------
// Scratch: activation rows, then counts[E], then the (u, t) pairs grouped by expert, then
// the threads' panels.
uint64_t id_lists_bytes(int64_t E, int64_t slots) {
  return align_up(static_cast<uint64_t>(E + 1) * sizeof(int64_t) +
                  static_cast<uint64_t>(slots) * 2 * sizeof(int32_t));
}

void matmul_id(const KernelArgs& ar, int ith, int nth) {
  const zen_tensor &dst = *ar.dst, &a = *ar.src[0], &b = *ar.src[1], &ids = *ar.src[2];
  const mm::WeightType* wtp = fast_type(a);
  if (!wtp || !ar.work) return;
  const mm::WeightType& wt = *wtp;
  const int64_t K = a.ne[0], M = a.ne[1], E = a.ne[2], U1 = b.ne[1], U = ids.ne[0], T = ids.ne[1];
  const size_t arb = mm::act_row_bytes(wt.act, K);
  int64_t* counts = reinterpret_cast<int64_t*>(static_cast<char*>(ar.work) + act_bytes(wt, a, b));
  int32_t* pairs = reinterpret_cast<int32_t*>(counts + E + 1);

  Panels pn(a, U * T, reinterpret_cast<char*>(counts) + id_lists_bytes(E, U * T), ith, ar.packed);

  convert_activations(ar, wt, ith, nth);
  if (ith == 0) {  // group the (u, t) slots by expert (counting sort); bad ids get zeros
    std::fill(counts, counts + E + 1, 0);
    auto id_at = [&](int64_t u, int64_t tt) {
      int32_t e;
      std::memcpy(&e, at(ar.s[2], ids, u, tt, 0, 0), sizeof e);
      return e;
    };
    for (int64_t tt = 0; tt < T; ++tt)
      for (int64_t u = 0; u < U; ++u) {
        const int32_t e = id_at(u, tt);
        if (e >= 0 && e < E)
          ++counts[e + 1];
        else
          for (int64_t m = 0; m < M; ++m)
            *reinterpret_cast<float*>(at(ar.d, dst, m, u, tt, 0)) = 0.0f;
      }
    for (int64_t e = 0; e < E; ++e) counts[e + 1] += counts[e];  // now offsets
    for (int64_t tt = 0; tt < T; ++tt)
      for (int64_t u = 0; u < U; ++u) {
        const int32_t e = id_at(u, tt);
        if (e < 0 || e >= E) continue;
        int32_t* p = pairs + 2 * counts[e]++;
        p[0] = static_cast<int32_t>(u);
        p[1] = static_cast<int32_t>(tt);
      }
    for (int64_t e = E; e > 0; --e) counts[e] = counts[e - 1];  // back to offsets: [e, e + 1)
    counts[0] = 0;
  }
  sync_threads(ar);

  // Items: per expert, tiles of its rows x its tokens; each expert's weights stream once.
  const Tiling t0 = row_tiling(wt, pn, K, M, 1, arb, nth);
  int64_t total = 0;
  for (int64_t e = 0; e < E; ++e) {
    const int64_t c = counts[e + 1] - counts[e];
    if (c) total += ((M + t0.mb - 1) / t0.mb) * ((c + 63) / 64);
  }
  const Range r = share(total, ith, nth);
  const int64_t mt = (M + t0.mb - 1) / t0.mb;
  int64_t item = 0;
  const void* act[64];
  for (int64_t e = 0; e < E && item < r.end; ++e) {
    const int64_t c = counts[e + 1] - counts[e];
    if (!c) continue;
    const int64_t nt = (c + 63) / 64;
    if (item + mt * nt <= r.begin) {
      item += mt * nt;
      continue;
    }
    const char* w = at(ar.s[0], a, 0, 0, e, 0);
    for (int64_t ti = 0; ti < mt; ++ti)
      for (int64_t tj = 0; tj < nt; ++tj, ++item) {
        if (item < r.begin || item >= r.end) continue;
        const int64_t m0 = ti * t0.mb, m1 = std::min(M, m0 + t0.mb);
        const int64_t j0 = tj * 64, n = std::min(c, j0 + 64) - j0;
        const int32_t* p = pairs + 2 * (counts[e] + j0);
        for (int64_t j = 0; j < n; ++j) {
          const int64_t u = p[2 * j], tt = p[2 * j + 1];
          act[j] = static_cast<const char*>(ar.work) +
                   (tt * U1 + (U1 == 1 ? 0 : u)) * static_cast<int64_t>(arb);
        }
        tile(wt, pn, K, w, static_cast<size_t>(a.nb[1]), e, m0, m1, act, n,
             [&](int64_t m, int64_t j) {
               return reinterpret_cast<float*>(at(ar.d, dst, m, p[2 * j], p[2 * j + 1], 0));
             });
      }
  }
}

uint64_t matmul_id_work(const zen_tensor&, const zen_tensor* const* src, int nth) {
  const mm::WeightType* wt = fast_type(*src[0]);
  if (!wt) return 0;
  const int64_t slots = src[2]->ne[0] * src[2]->ne[1];
  return act_bytes(*wt, *src[0], *src[1]) + id_lists_bytes(src[0]->ne[2], slots) +
         panel_bytes(*src[0], slots, nth);
}

#define ZEN_MM(T) \
  { ZEN_OP_MATMUL, ZEN_TYPE_F32, T, ZEN_TYPE_F32, matmul_q, matmul_work }
#define ZEN_MMID(T) \
  { ZEN_OP_MATMUL_ID, ZEN_TYPE_F32, T, ZEN_TYPE_F32, matmul_id, matmul_id_work }
constexpr KernelEntry kKernels[] = {
    {ZEN_OP_MATMUL, ZEN_TYPE_F32, ZEN_TYPE_F32, ZEN_TYPE_F32, matmul<float>, matmul_work},
    {ZEN_OP_MATMUL, ZEN_TYPE_F32, ZEN_TYPE_F16, ZEN_TYPE_F32, matmul<f16_t>, matmul_work},
    {ZEN_OP_MATMUL, ZEN_TYPE_F32, ZEN_TYPE_BF16, ZEN_TYPE_F32, matmul<bf16_t>, matmul_work},
    ZEN_MM(ZEN_TYPE_Q4_0),
    ZEN_MM(ZEN_TYPE_Q4_1),
    ZEN_MM(ZEN_TYPE_Q5_0),
    ZEN_MM(ZEN_TYPE_Q5_1),
    ZEN_MM(ZEN_TYPE_Q8_0),
    ZEN_MM(ZEN_TYPE_Q2_K),
    ZEN_MM(ZEN_TYPE_Q3_K),
    ZEN_MM(ZEN_TYPE_Q4_K),
    ZEN_MM(ZEN_TYPE_Q5_K),
    ZEN_MM(ZEN_TYPE_Q6_K),
    ZEN_MM(ZEN_TYPE_IQ4_NL),
    ZEN_MM(ZEN_TYPE_IQ4_XS),
    ZEN_MM(ZEN_TYPE_MXFP4),
    ZEN_MMID(ZEN_TYPE_F32),
    ZEN_MMID(ZEN_TYPE_F16),
    ZEN_MMID(ZEN_TYPE_BF16),
    ZEN_MMID(ZEN_TYPE_Q4_0),
    ZEN_MMID(ZEN_TYPE_Q4_1),
    ZEN_MMID(ZEN_TYPE_Q5_0),
    ZEN_MMID(ZEN_TYPE_Q5_1),
    ZEN_MMID(ZEN_TYPE_Q8_0),
    ZEN_MMID(ZEN_TYPE_Q2_K),
    ZEN_MMID(ZEN_TYPE_Q3_K),
    ZEN_MMID(ZEN_TYPE_Q4_K),
    ZEN_MMID(ZEN_TYPE_Q5_K),
    ZEN_MMID(ZEN_TYPE_Q6_K),
    ZEN_MMID(ZEN_TYPE_IQ4_NL),
    ZEN_MMID(ZEN_TYPE_IQ4_XS),
    ZEN_MMID(ZEN_TYPE_MXFP4),
};
#undef ZEN_MM
#undef ZEN_MMID

}  // namespace

std::span<const KernelEntry> matmul_kernels() { return kKernels; }

bool packs_weights(KernelFn fn) { return fn == matmul_q || fn == matmul_id; }

bool fuses_add(KernelFn fn) {
  return fn == matmul_q || fn == matmul<float> || fn == matmul<f16_t> || fn == matmul<bf16_t>;
}

}  // namespace ZEN_CPU_NS
