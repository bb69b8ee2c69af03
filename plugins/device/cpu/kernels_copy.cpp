// Data movement: none/view (nothing to do), cpy (convert + gather into packed), get_rows,
// set_rows (scatter converted rows into a KV cache in place).
#include <algorithm>
#include <string>
#include <type_traits>

#include <zen/plugin.hpp>

#include "kernels.h"
#include "tensor_access.h"
#include "vec.h"

namespace ZEN_CPU_NS {
namespace {

void nothing(const KernelArgs&, int, int) {}

// n packed elements of type S at `in` converted into packed type D at `out`: F32 -> F16 (the
// KV cache's writes) with F16C, the rest through 64-element chunks (copied in and out, so the
// rows need not be aligned for their element type).
template <class D, class S>
void convert_row(char* out, const char* in, int64_t n) {
  if constexpr (std::is_same_v<D, f16_t> && std::is_same_v<S, float>) {
    vec::to_f16(reinterpret_cast<uint16_t*>(out), reinterpret_cast<const float*>(in), n);
  } else {
    S tmp[64];
    D conv[64];
    for (int64_t i0 = 0; i0 < n; i0 += 64) {
      const int64_t m = std::min<int64_t>(64, n - i0);
      std::memcpy(tmp, in + i0 * static_cast<int64_t>(sizeof(S)),
                  static_cast<size_t>(m) * sizeof(S));
      for (int64_t j = 0; j < m; ++j) conv[j] = from_f32<D>(to_f32(tmp[j]));
      std::memcpy(out + i0 * static_cast<int64_t>(sizeof(D)), conv,
                  static_cast<size_t>(m) * sizeof(D));
    }
  }
}

// dst and src0 have the same shape; dst is packed, src0 may be any view (a permute is
// materialised here). Rows with unit-stride source elements take a tight loop (memcpy when the
// types are equal); others gather element by element.
// (Plan: tile transposes, whose source ne0 stride is large, for cache locality.)
template <class D, class S>
void cpy(const KernelArgs& a, int ith, int nth) {
  const zen_tensor &dst = *a.dst, &src = *a.src[0];
  const Range r = share(rows(dst), ith, nth);
  const int64_t n = dst.ne[0], nb0 = static_cast<int64_t>(src.nb[0]);
  for (int64_t row = r.begin; row < r.end; ++row) {
    const RowIndex i = row_index(dst, row);
    char* out = at(a.d, dst, 0, i.i1, i.i2, i.i3);
    const char* in = at(a.s[0], src, 0, i.i1, i.i2, i.i3);
    if constexpr (std::is_same_v<D, S>) {
      if (nb0 == sizeof(S)) {
        std::memcpy(out, in, static_cast<size_t>(n) * sizeof(S));
      } else {
        for (int64_t i0 = 0; i0 < n; ++i0)
          std::memcpy(out + i0 * static_cast<int64_t>(sizeof(S)), in + i0 * nb0, sizeof(S));
      }
    } else if (nb0 == sizeof(S)) {
      convert_row<D, S>(out, in, n);
    } else {
      for (int64_t i0 = 0; i0 < n; ++i0)
        store<D>(out + i0 * static_cast<int64_t>(sizeof(D)), load<S>(in + i0 * nb0));
    }
  }
}

// dst [K, N, B2, B3] F32 = rows ids[n, b2, b3] of table [K, R, B2, B3].
template <class S>
void get_rows(const KernelArgs& a, int ith, int nth) {
  const zen_tensor &dst = *a.dst, &table = *a.src[0], &ids = *a.src[1];
  const Range r = share(rows(dst), ith, nth);
  for (int64_t row = r.begin; row < r.end; ++row) {
    const RowIndex i = row_index(dst, row);
    const int64_t id = checked_row_id(a.s[1], ids, i, table.ne[1]);
    for (int64_t k = 0; k < dst.ne[0]; ++k)
      store<float>(at(a.d, dst, k, i.i1, i.i2, i.i3),
                   load<S>(at(a.s[0], table, k, id, i.i2, i.i3)));
  }
}

// dst (= src0's memory) rows ids[n] = rows n of src1 [K, N] F32, converted. Ids are distinct
// (cache cells), so threads can split the rows.
template <class D>
void set_rows(const KernelArgs& a, int ith, int nth) {
  const zen_tensor &dst = *a.dst, &rows_in = *a.src[1], &ids = *a.src[2];
  const Range r = share(rows_in.ne[1], ith, nth);
  const int64_t n = dst.ne[0];
  const bool packed = dst.nb[0] == sizeof(D) && rows_in.nb[0] == sizeof(float);
  for (int64_t row = r.begin; row < r.end; ++row) {
    const int64_t id = checked_row_id(a.s[2], ids, RowIndex{row, 0, 0}, dst.ne[1]);
    char* out = at(a.d, dst, 0, id, 0, 0);
    const char* in = at(a.s[1], rows_in, 0, row, 0, 0);
    if (packed) {
      convert_row<D, float>(out, in, n);
      continue;
    }
    for (int64_t k = 0; k < n; ++k)
      store<D>(out + k * static_cast<int64_t>(dst.nb[0]),
               load<float>(in + k * static_cast<int64_t>(rows_in.nb[0])));
  }
}

constexpr uint32_t F32 = ZEN_TYPE_F32, F16 = ZEN_TYPE_F16, BF16 = ZEN_TYPE_BF16, I32 = ZEN_TYPE_I32;

constexpr KernelEntry kKernels[] = {
    {ZEN_OP_NONE, kAnyType, kAnyType, kAnyType, nothing},
    {ZEN_OP_VIEW, kAnyType, kAnyType, kAnyType, nothing},
    {ZEN_OP_CPY, F32, F32, kNoSrc, cpy<float, float>},
    {ZEN_OP_CPY, F32, F16, kNoSrc, cpy<float, f16_t>},
    {ZEN_OP_CPY, F32, BF16, kNoSrc, cpy<float, bf16_t>},
    {ZEN_OP_CPY, F16, F32, kNoSrc, cpy<f16_t, float>},
    {ZEN_OP_CPY, F16, F16, kNoSrc, cpy<f16_t, f16_t>},
    {ZEN_OP_CPY, F16, BF16, kNoSrc, cpy<f16_t, bf16_t>},
    {ZEN_OP_CPY, BF16, F32, kNoSrc, cpy<bf16_t, float>},
    {ZEN_OP_CPY, BF16, F16, kNoSrc, cpy<bf16_t, f16_t>},
    {ZEN_OP_CPY, BF16, BF16, kNoSrc, cpy<bf16_t, bf16_t>},
    {ZEN_OP_CPY, I32, I32, kNoSrc, cpy<int32_t, int32_t>},
    {ZEN_OP_GET_ROWS, F32, F32, I32, get_rows<float>},
    {ZEN_OP_GET_ROWS, F32, F16, I32, get_rows<f16_t>},
    {ZEN_OP_GET_ROWS, F32, BF16, I32, get_rows<bf16_t>},
    {ZEN_OP_SET_ROWS, F32, F32, F32, set_rows<float>},
    {ZEN_OP_SET_ROWS, F16, F16, F32, set_rows<f16_t>},
    {ZEN_OP_SET_ROWS, BF16, BF16, F32, set_rows<bf16_t>},
};

}  // namespace

std::span<const KernelEntry> copy_kernels() { return kKernels; }

}  // namespace ZEN_CPU_NS
