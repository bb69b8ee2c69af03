// get_rows and cpy from the quantized block formats to F32, through the scalar reference
// codecs (the SDK's zen/quant_codec.hpp, compiled once without ISA flags, so every variant returns the same bits
// as the codec tests check against gguf-py). F32/F16/BF16 sources live in kernels_copy.cpp.
#include <string>

#include <zen/plugin.hpp>

#include "kernels.h"
#include <zen/quant_codec.hpp>
#include "tensor_access.h"

namespace ZEN_CPU_NS {
namespace {

// Dequantizes one row of n elements of quantized tensor t starting at `in` into `out`, whose
// consecutive elements are out_stride bytes apart. The source's blocks are t.nb[0] bytes apart
// (block_bytes when packed; a view may space them differently).
void dequantize_strided(const zen_tensor& t, const char* in, int64_t n, char* out,
                        int64_t out_stride) {
  const auto type = static_cast<zen_type>(t.type);
  const int64_t bs = zen::quant::block_size(type);
  const uint64_t bb = zen::quant::block_bytes(type);
  if (t.nb[0] == bb && out_stride == static_cast<int64_t>(sizeof(float))) {
    zen::quant::dequantize_row(type, in, reinterpret_cast<float*>(out), n);
    return;
  }
  float tmp[zen::quant::QK_K];
  for (int64_t b = 0; b < n / bs; ++b) {
    zen::quant::dequantize_row(type, in + b * static_cast<int64_t>(t.nb[0]), tmp, bs);
    if (out_stride == static_cast<int64_t>(sizeof(float))) {
      std::memcpy(out + b * bs * out_stride, tmp, static_cast<size_t>(bs) * sizeof(float));
    } else {
      for (int64_t j = 0; j < bs; ++j)
        std::memcpy(out + (b * bs + j) * out_stride, &tmp[j], sizeof(float));
    }
  }
}

// dst [K, N, B2, B3] F32 = rows ids[n, b2, b3] of the quantized table [K, R, B2, B3].
void get_rows_q(const KernelArgs& a, int ith, int nth) {
  const zen_tensor &dst = *a.dst, &table = *a.src[0], &ids = *a.src[1];
  const Range r = share(rows(dst), ith, nth);
  for (int64_t row = r.begin; row < r.end; ++row) {
    const RowIndex i = row_index(dst, row);
    const int64_t id = checked_row_id(a.s[1], ids, i, table.ne[1]);
    dequantize_strided(table, at(a.s[0], table, 0, id, i.i2, i.i3), dst.ne[0],
                       at(a.d, dst, 0, i.i1, i.i2, i.i3), static_cast<int64_t>(dst.nb[0]));
  }
}

// dst F32 (same shape, packed) = src0 dequantized, row by row.
void cpy_q(const KernelArgs& a, int ith, int nth) {
  const zen_tensor &dst = *a.dst, &src = *a.src[0];
  const Range r = share(rows(dst), ith, nth);
  for (int64_t row = r.begin; row < r.end; ++row) {
    const RowIndex i = row_index(dst, row);
    dequantize_strided(src, at(a.s[0], src, 0, i.i1, i.i2, i.i3), dst.ne[0],
                       at(a.d, dst, 0, i.i1, i.i2, i.i3), static_cast<int64_t>(dst.nb[0]));
  }
}

constexpr uint32_t F32 = ZEN_TYPE_F32, I32 = ZEN_TYPE_I32;

// Every block format with a reference codec (the codec dispatches on the source type).
constexpr KernelEntry kKernels[] = {
    {ZEN_OP_GET_ROWS, F32, ZEN_TYPE_Q4_0, I32, get_rows_q},
    {ZEN_OP_CPY, F32, ZEN_TYPE_Q4_0, kNoSrc, cpy_q},
    {ZEN_OP_GET_ROWS, F32, ZEN_TYPE_Q4_1, I32, get_rows_q},
    {ZEN_OP_CPY, F32, ZEN_TYPE_Q4_1, kNoSrc, cpy_q},
    {ZEN_OP_GET_ROWS, F32, ZEN_TYPE_Q5_0, I32, get_rows_q},
    {ZEN_OP_CPY, F32, ZEN_TYPE_Q5_0, kNoSrc, cpy_q},
    {ZEN_OP_GET_ROWS, F32, ZEN_TYPE_Q5_1, I32, get_rows_q},
    {ZEN_OP_CPY, F32, ZEN_TYPE_Q5_1, kNoSrc, cpy_q},
    {ZEN_OP_GET_ROWS, F32, ZEN_TYPE_Q8_0, I32, get_rows_q},
    {ZEN_OP_CPY, F32, ZEN_TYPE_Q8_0, kNoSrc, cpy_q},
    {ZEN_OP_GET_ROWS, F32, ZEN_TYPE_Q8_1, I32, get_rows_q},
    {ZEN_OP_CPY, F32, ZEN_TYPE_Q8_1, kNoSrc, cpy_q},
    {ZEN_OP_GET_ROWS, F32, ZEN_TYPE_Q2_K, I32, get_rows_q},
    {ZEN_OP_CPY, F32, ZEN_TYPE_Q2_K, kNoSrc, cpy_q},
    {ZEN_OP_GET_ROWS, F32, ZEN_TYPE_Q3_K, I32, get_rows_q},
    {ZEN_OP_CPY, F32, ZEN_TYPE_Q3_K, kNoSrc, cpy_q},
    {ZEN_OP_GET_ROWS, F32, ZEN_TYPE_Q4_K, I32, get_rows_q},
    {ZEN_OP_CPY, F32, ZEN_TYPE_Q4_K, kNoSrc, cpy_q},
    {ZEN_OP_GET_ROWS, F32, ZEN_TYPE_Q5_K, I32, get_rows_q},
    {ZEN_OP_CPY, F32, ZEN_TYPE_Q5_K, kNoSrc, cpy_q},
    {ZEN_OP_GET_ROWS, F32, ZEN_TYPE_Q6_K, I32, get_rows_q},
    {ZEN_OP_CPY, F32, ZEN_TYPE_Q6_K, kNoSrc, cpy_q},
    {ZEN_OP_GET_ROWS, F32, ZEN_TYPE_Q8_K, I32, get_rows_q},
    {ZEN_OP_CPY, F32, ZEN_TYPE_Q8_K, kNoSrc, cpy_q},
    {ZEN_OP_GET_ROWS, F32, ZEN_TYPE_IQ4_NL, I32, get_rows_q},
    {ZEN_OP_CPY, F32, ZEN_TYPE_IQ4_NL, kNoSrc, cpy_q},
    {ZEN_OP_GET_ROWS, F32, ZEN_TYPE_IQ4_XS, I32, get_rows_q},
    {ZEN_OP_CPY, F32, ZEN_TYPE_IQ4_XS, kNoSrc, cpy_q},
    {ZEN_OP_GET_ROWS, F32, ZEN_TYPE_MXFP4, I32, get_rows_q},
    {ZEN_OP_CPY, F32, ZEN_TYPE_MXFP4, kNoSrc, cpy_q},
};

}  // namespace

std::span<const KernelEntry> dequant_kernels() { return kKernels; }

}  // namespace ZEN_CPU_NS
