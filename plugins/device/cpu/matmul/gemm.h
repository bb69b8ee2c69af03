// Prefill GEMM microkernels: 8 weight rows (16 with AVX-512) x up to 8 activation columns per
// call.
//
// The dot products of vec_dot.h keep one output per accumulator, so every 32-element block
// of every (row, column) pair pays its own int32 reduction, conversion and scaling. Here the
// weights of 8 rows are first repacked ("packed") into a panel whose 32-byte vectors hold 4
// consecutive quants of each of the 8 rows, one row per 32-bit lane; one broadcast 4-byte
// group of an activation row then feeds all 8 rows with a single maddubs, the int16 partial
// sums of several groups add up before widening (the unsigned quants are small enough not to
// saturate), and the conversion and scaling happen once per block for 8 outputs at once.
// A model weight's panels are built once and kept by the device (packed_weights.h): they then
// serve decode too (one column), in place of the weight's own rows. Other matrices' panels are
// built once per row tile and reused by every column of the tile.
//
// The activation formats are vec_dot.h's (act_q8 for the 32-element formats, Q8_K for the
// K-quants); the integer block sums are exact, as in the dot products.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ZEN_CPU_NS::mm {

inline constexpr int kPanelRows = 8;    // weight rows per panel
inline constexpr int kMaxGemmCols = 8;  // activation columns per kernel call, at most

struct GemmType {
  // Bytes of one panel of k elements per row.
  size_t (*panel_bytes)(int64_t k);
  // Packs rows w[0 .. rows) (rows <= 8, wrow bytes apart; k elements each) into one panel;
  // the missing rows are zeros.
  void (*pack)(int64_t k, const char* w, size_t wrow, int rows, void* panel);
  // out[8 c + r] = (row r of the panel) . (activation row a[c]) for c < n (1..cols), r < 8.
  void (*kernel)(int64_t k, const void* panel, const void* const* a, int n, float* out);
  // The same over 16 rows, a panel's and those of the panel `next` bytes after it:
  // out[16 c + r]. nullptr where the variant's vectors hold 8 rows (AVX2); with AVX-512 one
  // instruction then serves both panels. Panels are contiguous (kept or in scratch), so the
  // kernel prefetches the next pair two panels on.
  void (*kernel16)(int64_t k, const void* panel, ptrdiff_t next, const void* const* a, int n,
                   float* out);
  // Columns one kernel call serves (<= kMaxGemmCols): 4 with AVX2's 16 vector registers, 8
  // with AVX-512's 32 (VNNI's one-instruction int8 products free the registers AVX2 spends
  // on int16 partial sums).
  int cols;
  // Fewest activation columns worth packing for: packing costs a pass over the weights that
  // below this the dot products' 4-column passes beat (measured per type and ISA with
  // zen-bench-matmul's BD cases; the table in gemm_avx2.cpp says what).
  int64_t min_columns;
  // The same for a weight whose panels the device keeps (packed_weights.h): nothing to repay,
  // so only the kernel against the dot products decides.
  int64_t min_columns_kept;
};

// The packed GEMM of a weight type in this variant, or nullptr (the dot products serve it).
const GemmType* gemm_type(uint32_t type);

}  // namespace ZEN_CPU_NS::mm
