#version 450
// Activations of a quantized-weight MATMUL/MATMUL_ID, quantized as the CPU device does
// (plugins/device/cpu/matmul/vec_dot.cpp, quantize_act) so the integer dot products in
// matmul.comp see the same int8 values and scales: per block of 32 (Q8) or 256 (Q8_K)
// elements, d = amax / 127, q = roundEven(x * 127 / amax) clamped to -127..127.
// One invocation per (block, column); columns are b's (n, i2, i3) in that order.
// Scratch layout (words, binding 1): per column `blocks` blocks of
//   Q8:   d, d * sum(q), 8 words of 4 int8 q          (10 words)
//   Q8_K: d, 64 words of 4 int8 q                     (65 words; the K-quants' per-32 sums
//                                                      are taken while dotting)
// Bindings: b 0, scratch 1.
#include "common.glsl"

layout(local_size_x = 64) in;

layout(push_constant) uniform PC {
  uint off_b, bnb0, bnb1, bnb2;
  uint bnb3, ne1, ne2, ne3;
  uint K, qk;  // qk: 32 (Q8) or 256 (Q8_K)
} pc;

void main() {
  const uint i = global_id(64u);
  const uint blocks = pc.K / pc.qk, cols = pc.ne1 * pc.ne2 * pc.ne3;
  if (i >= blocks * cols) return;
  const uint blk = i % blocks, col = i / blocks;
  const uint n = col % pc.ne1, i2 = (col / pc.ne1) % pc.ne2, i3 = col / (pc.ne1 * pc.ne2);
  const uint x0 = pc.off_b + n * pc.bnb1 + i2 * pc.bnb2 + i3 * pc.bnb3 + blk * pc.qk * pc.bnb0;
  float amax = 0.0;
  for (uint j = 0u; j < pc.qk; ++j) amax = max(amax, abs(rdf32_0(x0 + j * pc.bnb0)));
  const float d = amax / 127.0, id = amax > 0.0 ? 127.0 / amax : 0.0;
  const uint bw = pc.qk == 32u ? 10u : 65u, o = col * blocks * bw + blk * bw;
  const uint qo = o + (pc.qk == 32u ? 2u : 1u);
  int sum = 0;
  for (uint w = 0u; w < pc.qk / 4u; ++w) {
    uint word = 0u;
    [[unroll]] for (uint k = 0u; k < 4u; ++k) {
      const int q = clamp(int(roundEven(rdf32_0(x0 + (4u * w + k) * pc.bnb0) * id)), -127, 127);
      sum += q;
      word |= (uint(q) & 0xffu) << (8u * k);
    }
    bufs[1].w[qo + w] = word;
  }
  bufs[1].w[o] = floatBitsToUint(d);
  if (pc.qk == 32u) bufs[1].w[o + 1u] = floatBitsToUint(d * float(sum));
}
