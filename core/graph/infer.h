// Shape and type inference for every op in zen_op, including ops no device implements yet:
// a graph is checked completely when it is built, so a wrong shape is a one-line error naming
// the op and the shapes instead of a device-side surprise.
//
// Shapes are written innermost first ([ne0, ne1, ne2, ne3]); "float" means F32, F16 or BF16;
// "any" includes block-quantized types (whose ne0 must then be a multiple of the block size).
// Params are zen_tensor.params slots; [x] is the default for a trailing param left out.
//
//   get_rows    table [K, R, B2, B3] any, ids I32 [N, B2, B3]          -> F32 [K, N, B2, B3]
//   matmul      a [K, M, A2, A3] any, b F32 [K, N, B2, B3]             -> F32 [M, N, B2, B3]
//               a is broadcast over the batch: B2 % A2 == 0 and B3 % A3 == 0
//   matmul_id   experts [K, M, E] any, b F32 [K, U or 1, T], ids I32 [U, T] -> F32 [M, U, T]
//   add, mul    a [..] float, b float with a.ne[i] % b.ne[i] == 0 (b broadcast) -> a's type, a's
//   shape scale       a float; params f32 scale, f32 bias [0]                -> a's type and shape
//   rms_norm    a float over ne0; params f32 eps (required)           -> a's type and shape
//   layer_norm  as rms_norm
//   group_norm  a [W, H, C, N] float; params i32 groups (C % groups == 0), f32 eps -> same
//   rope        x [D, H, T] float, pos I32 [T] ([4 T] for ZEN_ROPE_MROPE), optional freq
//               factors F32 [n_dims / 2]; params zen_rope_params (n_dims required, even,
//               <= D; sections >= 0, not all 0 for MROPE)             -> x's type and shape
//   softmax     x [C, R, B2, B3] float, optional mask F32/F16 [C, R' >= R, M2, M3] with
//               B2 % M2 == 0 and B3 % M3 == 0; params f32 scale [1]    -> F32, x's shape
//   attention   q [D, T, Hq, S], k [D, L, Hkv, S'], v [Dv, L, Hkv, S'] float with Hq % Hkv == 0
//               and S % S' == 0 (k and v may also be Q8_0), optional mask F32/F16
//               [L, T' >= T, M2, M3] with Hq % M2 == 0 and S % M3 == 0; params
//               zen_attention_params (scale, softcap, causal, window, pos0) -> F32 [Dv, Hq, T, S]
//               (heads before tokens, so a reshape to [Dv * Hq, T] feeds the output matmul)
//   silu        a float                                               -> a's type and shape
//   gelu        a float; params i32 0 = tanh approximation, 1 = erf [0]
//   glu         a, b float, same shape; params i32 0 swiglu, 1 geglu-tanh, 2 geglu-erf [0]
//   argsort     a float; params i32 0 ascending, 1 descending [0]     -> I32, a's shape
//   top_k       a float; params i32 k (1 <= k <= ne0)                 -> I32 [k, ne1, ne2, ne3]
//   conv1d      kernel [K, Cin, Cout], x [L, Cin, N] float; params i32 stride [1], pad [0],
//               dilation [1]                                          -> F32 [OL, Cout, N]
//               OL = (L + 2 pad - dilation (K - 1) - 1) / stride + 1 >= 1
//   conv2d      kernel [KW, KH, Cin, Cout], x [W, H, Cin, N]; params i32 s0 [1], s1 [1], p0 [0],
//               p1 [0], d0 [1], d1 [1]                                -> F32 [OW, OH, Cout, N]
//   conv_transpose1d kernel [K, Cout, Cin], x [L, Cin, N]; params i32 stride [1], pad [0],
//               dilation [1] -> F32 [(L - 1) stride - 2 pad + dilation (K - 1) + 1, Cout, N]
//   concat      2..6 tensors of one type, equal except in dim; params i32 dim [0]
//   cpy         a any; params i32 destination type [a's type]          -> packed, a's shape
//   upsample    a [W, H, C, N] float; params i32 target ne0..ne3, i32 mode 0 nearest,
//               1 bilinear [0]                                        -> F32 target shape
//   custom      0..6 tensors; params i32 kernel id lo, hi, result type, result ne0..ne3
//   none, view  not ops: leaves come from input()/weight(), views from view()
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "graph/tensor.h"

namespace zen::graph {

struct Inferred {
  zen_type type;
  std::array<int64_t, ZEN_MAX_DIMS> ne;
  std::array<int32_t, ZEN_MAX_OP_PARAMS> params;  // given params plus defaults
};

// Result of `op` applied to `srcs` (optional sources are trailing and simply left out) with
// `params` (trailing optional params likewise).
// Throws zen::Error(ZEN_ERR_INVALID_ARG) with a one-line message starting with the op's name.
Inferred infer(zen_op op, std::span<const Tensor* const> srcs, std::span<const int32_t> params);

}  // namespace zen::graph
