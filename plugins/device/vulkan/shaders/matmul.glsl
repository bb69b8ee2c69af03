// MATMUL and MATMUL_ID: dst [M, N, B2, B3] = a [K, M, A2, A3] x b [K, N, B2, B3] (a broadcast
// over the batch dims), a of any type dq32() decodes, b F32 (strided). One invocation computes
// one weight row m against up to NC columns: it walks the row in 32-element chunks, decodes
// each chunk once and dots it with every column. No shared memory and no barriers: software
// implementations (lavapipe runs a barrier as a coroutine switch) pay nothing per workgroup,
// and decode (N = 1) still has M invocations. Prefill reuses each decoded chunk NC times.
// MATMUL_ID (mode 1): dst [M, U, T]; the column of slot (u, t) is b[:, U1 == 1 ? 0 : u, t]
// and its weights are expert ids[u, t] of a [K, M, E]; an id outside 0..E-1 gives zeros.
// Binding 0 may be a window of a: rows m0 .. m0 + Mw - 1 (tensors above the device's
// maxStorageBufferRange are split into several dispatches).
// Quantized weights (block formats) dot integer quants with the int8 activations that
// quantize_act.comp wrote to binding 4 (the CPU device's act_q8 / Q8_K scheme), scaled per
// block as the CPU's vec_dot does; float weights dot float activations.
// A workgroup covers 64 rows of one column group (or slot) and batch, so everything about
// the activations is uniform across it: llvmpipe then loads them once per workgroup instead
// of gathering per invocation.
// Bindings: a 0, b 1, dst 2, ids 3, quantized activations 4.
// The body of matmul.comp (float weights and QFORMATS_BASE) and matmul_ext.comp
// (QFORMATS_EXT): the same code compiled with the decoders of some formats only (quant.glsl).
#include "common.glsl"
#include "quant.glsl"

#define WG 64u
#define NC 8u
layout(local_size_x = 64) in;

#include "matmul_pc.glsl"
#include "qdot.glsl"


void main() {
  // Workgroup -> (64-row tile, column group or slot, batch); invocation -> row of the tile.
  const uint tiles = (pc.Mw + WG - 1u) / WG, g = group_id();
  const uint cgroups = pc.mode == 0u ? (pc.N + NC - 1u) / NC : pc.N * pc.B2;
  const uint rest = g / tiles;
  if (rest >= cgroups * (pc.mode == 0u ? pc.B2 * pc.B3 : 1u)) return;
  const uint mw = (g % tiles) * WG + gl_LocalInvocationID.x, m = pc.m0 + mw;
  if (mw >= pc.Mw) return;
  const bool quant = block_size(pc.atype) > 1u;
  // Words of one column's quantized activations (quantize_act.comp).
  const uint colw = is_kquant(pc.atype) ? pc.K / 256u * 65u : pc.K / 32u * 10u;

  uint arow, ncols, n0 = 0u, i2 = 0u, i3 = 0u, u = 0u, t = 0u, qcol0;
  if (pc.mode == 0u) {
    const uint cg = rest % cgroups, batch = rest / cgroups;
    i2 = batch % pc.B2;
    i3 = batch / pc.B2;
    n0 = cg * NC;
    ncols = min(NC, pc.N - n0);
    arow = pc.off_a + mw * pc.anb1 + (i2 / (pc.B2 / pc.A2)) * pc.anb2 +
           (i3 / (pc.B3 / pc.A3)) * pc.anb3;
    qcol0 = (n0 + pc.N * (i2 + pc.B2 * i3)) * colw;
  } else {
    u = rest % pc.N;
    t = rest / pc.N;
    const int e = int(rd32_3(pc.off_ids + u * pc.inb0 + t * pc.inb1));
    const uint o = pc.off_d + m * pc.dnb0 + u * pc.dnb1 + t * pc.dnb2;
    if (e < 0 || uint(e) >= pc.E) {
      wrf32_2(o, 0.0);
      return;
    }
    ncols = 1u;
    arow = pc.off_a + mw * pc.anb1 + uint(e) * pc.anb2;
    qcol0 = ((pc.U1 == 1u ? 0u : u) + pc.U1 * t) * colw;
  }

  float acc[NC];
  for (uint c = 0u; c < NC; ++c) acc[c] = 0.0;
  const uint chunks = (pc.K + 31u) / 32u;
  if (quant && ncols == 1u) {
    // Decode: scalar accumulators (llvmpipe lowers arrays indexed at run time to memory).
    float a0 = 0.0;
    int si = 0, sm = 0;
    for (uint ch = 0u; ch < chunks; ++ch) {
      uint qw[8];
      float d, mm;
      ivec4 sc;
      qhead(pc.atype, arow, ch, d, mm, sc);
      qwords(pc.atype, arow, ch, qw);
      qdot(pc.atype, ch, qw, d, mm, sc, qcol0, a0, si, sm);
    }
    acc[0] = a0;
  } else if (quant) {
    int si[NC], sm[NC];
    for (uint c = 0u; c < NC; ++c) {
      si[c] = 0;
      sm[c] = 0;
    }
    // Prefill: one decode of the chunk feeds every column.
    for (uint ch = 0u; ch < chunks; ++ch) {
      uint qw[8];
      float d, mm;
      ivec4 sc;
      qhead(pc.atype, arow, ch, d, mm, sc);
      qwords(pc.atype, arow, ch, qw);
      for (uint c = 0u; c < ncols; ++c)
        qdot(pc.atype, ch, qw, d, mm, sc, qcol0 + c * colw, acc[c], si[c], sm[c]);
    }
  } else {
    uint bcol[NC];
    for (uint c = 0u; c < NC; ++c)
      bcol[c] = pc.mode == 0u ? pc.off_b + (n0 + min(c, ncols - 1u)) * pc.bnb1 + i2 * pc.bnb2 +
                                    i3 * pc.bnb3
                              : pc.off_b + (pc.U1 == 1u ? 0u : u) * pc.bnb1 + t * pc.bnb2;
    for (uint ch = 0u; ch < chunks; ++ch) {
      float v[32];
      dq32(pc.atype, arow, ch, pc.anb0, pc.K, v);
      const uint kn = min(32u, pc.K - ch * 32u), k0 = ch * 32u * pc.bnb0;
      for (uint c = 0u; c < ncols; ++c) {
        float s = 0.0;
        if (kn == 32u) {  // constant trip count: v[] stays in registers
          [[unroll]] for (uint j = 0u; j < 32u; ++j)
            s += v[j] * rdf32_1(bcol[c] + k0 + j * pc.bnb0);
        } else {
          [[unroll]] for (uint j = 0u; j < 32u; ++j)
            if (j < kn) s += v[j] * rdf32_1(bcol[c] + k0 + j * pc.bnb0);
        }
        acc[c] += s;
      }
    }
  }
  for (uint c = 0u; c < ncols; ++c) {
    uint o;
    if (pc.mode == 0u)
      o = pc.off_d + m * pc.dnb0 + (n0 + c) * pc.dnb1 + i2 * pc.dnb2 + i3 * pc.dnb3;
    else
      o = pc.off_d + m * pc.dnb0 + u * pc.dnb1 + t * pc.dnb2;
    store_dst(o, acc[c]);
  }
}
