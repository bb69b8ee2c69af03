// argsort and top_k over ne[0], returning I32 indices.
//
// Order: by value, ties by lower index (so the result equals a stable sort's). NaN counts as
// larger than every number (as in numpy and PyTorch): last ascending, first descending.
// top_k returns the indices of the k largest values, largest first.
// Each thread sorts whole rows in its own slice of the node's scratch: (value, index) pairs,
// sorted in place with std::sort / nth_element (which never allocate).
#include <algorithm>
#include <cmath>

#include "kernels.h"
#include "tensor_access.h"

namespace ZEN_CPU_NS {
namespace {

constexpr uint32_t F32 = ZEN_TYPE_F32, F16 = ZEN_TYPE_F16, BF16 = ZEN_TYPE_BF16, I32 = ZEN_TYPE_I32;

struct Item {
  float v;
  int32_t i;
};

// Strict weak orders (NaN largest, then lower index first among equals).
inline bool value_less(float a, float b) { return !std::isnan(a) && (std::isnan(b) || a < b); }
struct Ascending {
  bool operator()(const Item& x, const Item& y) const {
    return value_less(x.v, y.v) || (!value_less(y.v, x.v) && x.i < y.i);
  }
};
struct Descending {
  bool operator()(const Item& x, const Item& y) const {
    return value_less(y.v, x.v) || (!value_less(x.v, y.v) && x.i < y.i);
  }
};

uint64_t row_bytes(int64_t n) { return (static_cast<uint64_t>(n) * sizeof(Item) + 63) & ~63ull; }

uint64_t sort_work(const zen_tensor&, const zen_tensor* const* src, int nth) {
  return row_bytes(src[0]->ne[0]) * static_cast<uint64_t>(nth);
}

// Thread ith's scratch row, filled with src row (i1, i2, i3).
template <class S>
Item* load_row(const KernelArgs& a, const RowIndex& r, int ith) {
  const zen_tensor& src = *a.src[0];
  Item* items = reinterpret_cast<Item*>(static_cast<char*>(a.work) + row_bytes(src.ne[0]) * ith);
  const char* p = at(a.s[0], src, 0, r.i1, r.i2, r.i3);
  for (int64_t i0 = 0; i0 < src.ne[0]; ++i0)
    items[i0] = {load<S>(p + i0 * static_cast<int64_t>(src.nb[0])), static_cast<int32_t>(i0)};
  return items;
}

void store_indices(const KernelArgs& a, const RowIndex& r, const Item* items, int64_t n) {
  char* out = at(a.d, *a.dst, 0, r.i1, r.i2, r.i3);
  const int64_t nb0 = static_cast<int64_t>(a.dst->nb[0]);
  for (int64_t j = 0; j < n; ++j) std::memcpy(out + j * nb0, &items[j].i, sizeof(int32_t));
}

template <class S>
void argsort(const KernelArgs& a, int ith, int nth) {
  const zen_tensor& dst = *a.dst;
  const int64_t n = a.src[0]->ne[0];
  const Range r = share(rows(dst), ith, nth);
  for (int64_t row = r.begin; row < r.end; ++row) {
    const RowIndex ri = row_index(dst, row);
    Item* items = load_row<S>(a, ri, ith);
    if (dst.params[0] == 1)
      std::sort(items, items + n, Descending{});
    else
      std::sort(items, items + n, Ascending{});
    store_indices(a, ri, items, n);
  }
}

template <class S>
void top_k(const KernelArgs& a, int ith, int nth) {
  const zen_tensor& dst = *a.dst;
  const int64_t n = a.src[0]->ne[0], k = dst.ne[0];
  const Range r = share(rows(dst), ith, nth);
  for (int64_t row = r.begin; row < r.end; ++row) {
    const RowIndex ri = row_index(dst, row);
    Item* items = load_row<S>(a, ri, ith);
    // The k first in descending order, then sorted: O(n + k log k).
    if (k < n) std::nth_element(items, items + (k - 1), items + n, Descending{});
    std::sort(items, items + k, Descending{});
    store_indices(a, ri, items, k);
  }
}

constexpr KernelEntry kKernels[] = {
    {ZEN_OP_ARGSORT, I32, F32, kNoSrc, argsort<float>, sort_work},
    {ZEN_OP_ARGSORT, I32, F16, kNoSrc, argsort<f16_t>, sort_work},
    {ZEN_OP_ARGSORT, I32, BF16, kNoSrc, argsort<bf16_t>, sort_work},
    {ZEN_OP_TOP_K, I32, F32, kNoSrc, top_k<float>, sort_work},
    {ZEN_OP_TOP_K, I32, F16, kNoSrc, top_k<f16_t>, sort_work},
    {ZEN_OP_TOP_K, I32, BF16, kNoSrc, top_k<bf16_t>, sort_work},
};

}  // namespace

std::span<const KernelEntry> sort_kernels() { return kKernels; }

}  // namespace ZEN_CPU_NS
