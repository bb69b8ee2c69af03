#version 450
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
// Bindings: a 0, b 1, dst 2, ids 3.
#include "common.glsl"
#include "quant.glsl"

#define WG 64u
#define NC 8u
layout(local_size_x = 64) in;

layout(push_constant) uniform PC {
  uint off_a, off_b, off_d, off_ids;
  uint M, N, B2, B3;              // dst shape (mode 1: M, U, T, 1)
  uint dnb0, dnb1, dnb2, dnb3;    // dst strides
  uint anb0, anb1, anb2, anb3;    // a strides (anb0: element stride of float rows)
  uint K, A2, A3, E;              // a shape beyond rows (E = a.ne[2] for mode 1)
  uint bnb0, bnb1, bnb2, bnb3;    // b strides
  uint atype, m0, Mw, mode;
  uint inb0, inb1, U1, unused;    // ids strides, b.ne[1] (mode 1)
} pc;

void main() {
  // Invocation -> (row within the window, column group or slot, batch).
  const uint i = global_id(WG);
  const uint cgroups = pc.mode == 0u ? (pc.N + NC - 1u) / NC : pc.N * pc.B2;
  if (i >= pc.Mw * cgroups * (pc.mode == 0u ? pc.B2 * pc.B3 : 1u)) return;
  const uint mw = i % pc.Mw, rest = i / pc.Mw, m = pc.m0 + mw;

  uint arow, ncols, n0 = 0u, i2 = 0u, i3 = 0u, u = 0u, t = 0u;
  if (pc.mode == 0u) {
    const uint cg = rest % cgroups, batch = rest / cgroups;
    i2 = batch % pc.B2;
    i3 = batch / pc.B2;
    n0 = cg * NC;
    ncols = min(NC, pc.N - n0);
    arow = pc.off_a + mw * pc.anb1 + (i2 / (pc.B2 / pc.A2)) * pc.anb2 +
           (i3 / (pc.B3 / pc.A3)) * pc.anb3;
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
  }
  uint bcol[NC];
  for (uint c = 0u; c < NC; ++c)
    bcol[c] = pc.mode == 0u ? pc.off_b + (n0 + min(c, ncols - 1u)) * pc.bnb1 + i2 * pc.bnb2 +
                                  i3 * pc.bnb3
                            : pc.off_b + (pc.U1 == 1u ? 0u : u) * pc.bnb1 + t * pc.bnb2;

  float acc[NC];
  for (uint c = 0u; c < NC; ++c) acc[c] = 0.0;
  const uint chunks = (pc.K + 31u) / 32u;
  if (ncols == 1u && pc.K % 32u == 0u) {
    // Decode: one column, every chunk whole. Scalars only: compilers that lower arrays
    // indexed by a runtime value to memory (llvmpipe) keep everything in registers.
    const uint b0 = bcol[0], bs = pc.bnb0;
    float a0 = 0.0;
    for (uint ch = 0u; ch < chunks; ++ch) {
      float v[32];
      dq32(pc.atype, arow, ch, pc.anb0, pc.K, v);
      const uint k0 = b0 + ch * 32u * bs;
      [[unroll]] for (uint j = 0u; j < 32u; ++j) a0 += v[j] * rdf32_1(k0 + j * bs);
    }
    acc[0] = a0;
  } else for (uint ch = 0u; ch < chunks; ++ch) {
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
  for (uint c = 0u; c < ncols; ++c) {
    uint o;
    if (pc.mode == 0u)
      o = pc.off_d + m * pc.dnb0 + (n0 + c) * pc.dnb1 + i2 * pc.dnb2 + i3 * pc.dnb3;
    else
      o = pc.off_d + m * pc.dnb0 + u * pc.dnb1 + t * pc.dnb2;
    wrf32_2(o, acc[c]);
  }
}
