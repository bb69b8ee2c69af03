#version 450
// MATMUL of one activation column (decode) and MATMUL_ID, on GPUs: one subgroup per weight
// row. Lane l takes the row's 32-element chunks l, l + S, ... (S = gl_SubgroupSize), so a
// subgroup reads a contiguous stretch of the row at once (coalesced), and the lanes' sums meet
// in subgroupAdd. The row-per-invocation kernel (matmul.glsl) suits software devices, where a
// subgroup is one SIMD register; on a GPU it reads each row with one thread (no coalescing)
// and left the H100 at 0.65% of its bandwidth (issue 15).
// Quantized weights dot the int8 activations of quantize_act.comp as matmul.glsl does: the
// K-quants keep the CPU's integer sums over each 256-element block: the block's 8 chunks go to
// 8 neighbouring lanes whose integer parts are summed exactly (shuffles) before its scales
// enter. Only the float order across blocks differs from the CPU (as in matmul.glsl).
// Workgroup -> (gl_NumSubgroups consecutive rows, column or slot, batch). Push constants and
// bindings as matmul.glsl (matmul_pc.glsl): a 0, b 1, dst 2, ids 3, quantized activations 4.
// Picked by the recorder where the device has subgroup arithmetic and shuffles in compute
// and is a GPU (vk_ops.cpp, use_matvec).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#include "common.glsl"
#include "quant.glsl"

layout(local_size_x = 64) in;

#include "matmul_pc.glsl"
#include "qdot.glsl"

void main() {
  const uint S = gl_SubgroupSize, lane = gl_SubgroupInvocationID, rows = gl_NumSubgroups;
  const uint tiles = (pc.Mw + rows - 1u) / rows, g = group_id();
  const uint slots = pc.mode == 0u ? pc.N * pc.B2 * pc.B3 : pc.N * pc.B2;
  const uint rest = g / tiles;
  if (rest >= slots) return;
  const uint mw = (g % tiles) * rows + gl_SubgroupID, m = pc.m0 + mw;
  if (mw >= pc.Mw) return;  // whole subgroups leave: the reductions below stay uniform
  const uint colw = is_kquant(pc.atype) ? pc.K / 256u * 65u : pc.K / 32u * 10u;

  uint arow, qcol, bcol, o;
  if (pc.mode == 0u) {
    const uint n = rest % pc.N, batch = rest / pc.N, i2 = batch % pc.B2, i3 = batch / pc.B2;
    arow = pc.off_a + mw * pc.anb1 + (i2 / (pc.B2 / pc.A2)) * pc.anb2 +
           (i3 / (pc.B3 / pc.A3)) * pc.anb3;
    qcol = (n + pc.N * (i2 + pc.B2 * i3)) * colw;
    bcol = pc.off_b + n * pc.bnb1 + i2 * pc.bnb2 + i3 * pc.bnb3;
    o = pc.off_d + m * pc.dnb0 + n * pc.dnb1 + i2 * pc.dnb2 + i3 * pc.dnb3;
  } else {
    const uint u = rest % pc.N, t = rest / pc.N;
    const int e = int(rd32_3(pc.off_ids + u * pc.inb0 + t * pc.inb1));
    o = pc.off_d + m * pc.dnb0 + u * pc.dnb1 + t * pc.dnb2;
    if (e < 0 || uint(e) >= pc.E) {
      if (lane == 0u) wrf32_2(o, 0.0);
      return;
    }
    arow = pc.off_a + mw * pc.anb1 + uint(e) * pc.anb2;
    qcol = ((pc.U1 == 1u ? 0u : u) + pc.U1 * t) * colw;
    bcol = pc.off_b + (pc.U1 == 1u ? 0u : u) * pc.bnb1 + t * pc.bnb2;
  }

  const uint chunks = (pc.K + 31u) / 32u;
  float acc = 0.0;
  if (is_kquant(pc.atype)) {
    const uint per = S / 8u, blocks = chunks / 8u;
    const bool mins = kquant_min(pc.atype);
    for (uint b0 = 0u; b0 < blocks; b0 += per) {  // the same trip count on every lane
      const uint blk = b0 + lane / 8u, ch = blk * 8u + (lane & 7u);
      const bool valid = blk < blocks;
      int si = 0, sm = 0;
      float d = 0.0, mm = 0.0, da = 0.0;
      if (valid) {
        uint qw[8];
        ivec4 sc;
        int d0, d1, a0, a1;
        float sa;
        qhead(pc.atype, arow, ch, d, mm, sc);
        qwords(pc.atype, arow, ch, qw);
        qchunk(pc.atype, ch, qw, qcol, d0, d1, a0, a1, da, sa);
        si = sc.x * d0 + sc.y * d1;
        if (mins) sm = sc.z * a0 + sc.w * a1;
      }
      [[unroll]] for (uint x = 1u; x < 8u; x <<= 1) {
        si += subgroupShuffleXor(si, x);
        sm += subgroupShuffleXor(sm, x);
      }
      if (valid && (lane & 7u) == 0u)
        acc += mins ? da * (d * float(si) - mm * float(sm)) : da * d * float(si);
    }
  } else if (block_size(pc.atype) > 1u) {
    for (uint ch = lane; ch < chunks; ch += S) {
      uint qw[8];
      float d, mm;
      ivec4 sc;
      int si = 0, sm = 0;
      qhead(pc.atype, arow, ch, d, mm, sc);
      qwords(pc.atype, arow, ch, qw);
      qdot(pc.atype, ch, qw, d, mm, sc, qcol, acc, si, sm);
    }
  } else {
    for (uint ch = lane; ch < chunks; ch += S) {
      float v[32];
      dq32(pc.atype, arow, ch, pc.anb0, pc.K, v);
      const uint kn = min(32u, pc.K - ch * 32u), k0 = bcol + ch * 32u * pc.bnb0;
      [[unroll]] for (uint j = 0u; j < 32u; ++j)
        if (j < kn) acc += v[j] * rdf32_1(k0 + j * pc.bnb0);
    }
  }
  acc = subgroupAdd(acc);
  if (lane == 0u) store_dst(o, acc);
}
