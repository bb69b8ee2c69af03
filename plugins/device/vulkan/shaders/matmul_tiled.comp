#version 450
// MATMUL of block-format weights by many columns (prefill) on GPUs: a workgroup of 256
// computes a 64-row x 64-column tile of dst, each invocation 4 rows x 4 columns. Per 32-element
// chunk, 64 invocations decode one weight row's chunk each (quant.glsl: qhead, qwords) and 64
// load one column's int8 activations (quantize_act.comp) into shared memory; then every
// invocation dots its 16 pairs from there. Each weight chunk is read from memory once per 64
// columns (the row kernel, matmul.glsl, reads it once per 8) and activations once per 64 rows.
// The sums are matmul.glsl's, chunk by chunk in the same order (the CPU's vec_dot scheme:
// 32-element formats scale each block, K-quants keep integer sums over each 256-element block),
// so results equal the row kernel's.
// Mode 0 only (no MATMUL_ID), dst and activations as matmul.glsl; bindings a 0, b 1 (unused),
// dst 2, ids 3 (unused), quantized activations 4. Picked by the recorder for N >= 16 on GPUs
// (vk_ops.cpp, use_tiled).
#include "common.glsl"
#include "quant.glsl"

layout(local_size_x = 256) in;

#include "matmul_pc.glsl"

#define TM 64u
#define TN 64u

shared uint w_q[TM * 8u];  // the chunk's quants of row r at 8r (qwords)
shared vec2 w_dm[TM];      // its d and m
shared ivec4 w_sc[TM];     // its integer scales
shared uint a_q[TN * 8u];  // column c's 32 int8 activations at 8c
shared vec2 a_ds[TN];      // their block scale and (32-element formats) d * sum(q)

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint tiles_m = (pc.Mw + TM - 1u) / TM, tiles_n = (pc.N + TN - 1u) / TN, g = group_id();
  const uint tm = g % tiles_m, tn = (g / tiles_m) % tiles_n, batch = g / (tiles_m * tiles_n);
  if (batch >= pc.B2 * pc.B3) return;  // the whole workgroup: no barrier is skipped
  const uint i2 = batch % pc.B2, i3 = batch / pc.B2;
  const uint abase =
      pc.off_a + (i2 / (pc.B2 / pc.A2)) * pc.anb2 + (i3 / (pc.B3 / pc.A3)) * pc.anb3;
  const bool kq = is_kquant(pc.atype), mins = kquant_min(pc.atype);
  const bool has_min = pc.atype == TYPE_Q4_1 || pc.atype == TYPE_Q5_1;
  const uint colw = kq ? pc.K / 256u * 65u : pc.K / 32u * 10u;
  const uint qbase = pc.N * (i2 + pc.B2 * i3) * colw;
  const uint r0 = tid % 16u, c0 = tid / 16u;  // rows r0 + 16i, columns c0 + 16j of the tile

  float acc[16];
  int si[16], sm[16];
  [[unroll]] for (uint k = 0u; k < 16u; ++k) {
    acc[k] = 0.0;
    si[k] = 0;
    sm[k] = 0;
  }
  const uint chunks = pc.K / 32u;
  for (uint ch = 0u; ch < chunks; ++ch) {
    if (tid < TM) {
      const uint mw = tm * TM + tid;
      uint qw[8];
      float d = 0.0, m = 0.0;
      ivec4 sc = ivec4(0);
      if (mw < pc.Mw) {
        const uint arow = abase + mw * pc.anb1;
        qhead(pc.atype, arow, ch, d, m, sc);
        qwords(pc.atype, arow, ch, qw);
      } else {
        [[unroll]] for (uint w = 0u; w < 8u; ++w) qw[w] = 0u;
      }
      [[unroll]] for (uint w = 0u; w < 8u; ++w) w_q[tid * 8u + w] = qw[w];
      w_dm[tid] = vec2(d, m);
      w_sc[tid] = sc;
    } else if (tid < TM + TN) {
      const uint c = tid - TM, n = tn * TN + c;
      if (n < pc.N) {
        const uint col = qbase + n * colw;
        const uint ab = kq ? col + (ch >> 3) * 65u : col + ch * 10u;
        const uint qa = kq ? ab + 1u + (ch & 7u) * 8u : ab + 2u;
        [[unroll]] for (uint w = 0u; w < 8u; ++w) a_q[c * 8u + w] = bufs[4].w[qa + w];
        a_ds[c] = vec2(uintBitsToFloat(bufs[4].w[ab]),
                       has_min ? uintBitsToFloat(bufs[4].w[ab + 1u]) : 0.0);
      } else {
        [[unroll]] for (uint w = 0u; w < 8u; ++w) a_q[c * 8u + w] = 0u;
        a_ds[c] = vec2(0.0);
      }
    }
    barrier();
    [[unroll]] for (uint i = 0u; i < 4u; ++i) {
      const uint r = r0 + 16u * i;
      const vec2 dm = w_dm[r];
      const ivec4 sc = w_sc[r];
      [[unroll]] for (uint j = 0u; j < 4u; ++j) {
        const uint c = c0 + 16u * j, k = 4u * i + j;
        int d0 = 0, d1 = 0, a0 = 0, a1 = 0;
        [[unroll]] for (uint w = 0u; w < 8u; ++w) {
          const uint aw = a_q[c * 8u + w], ww = w_q[r * 8u + w];
          int p = 0, s = 0;
          [[unroll]] for (uint b = 0u; b < 4u; ++b) {
            const int a = act8(aw, b);
            p += act8(ww, b) * a;
            s += a;
          }
          if (w < 4u) {
            d0 += p;
            a0 += s;
          } else {
            d1 += p;
            a1 += s;
          }
        }
        const vec2 ds = a_ds[c];
        if (!kq) {
          acc[k] += dm.x * ds.x * float(d0 + d1);
          if (has_min) acc[k] += dm.y * ds.y;
        } else {
          si[k] += sc.x * d0 + sc.y * d1;
          if (mins) sm[k] += sc.z * a0 + sc.w * a1;
          if ((ch & 7u) == 7u) {
            acc[k] += mins ? ds.x * (dm.x * float(si[k]) - dm.y * float(sm[k]))
                           : ds.x * dm.x * float(si[k]);
            si[k] = 0;
            sm[k] = 0;
          }
        }
      }
    }
    barrier();
  }
  [[unroll]] for (uint i = 0u; i < 4u; ++i)
    [[unroll]] for (uint j = 0u; j < 4u; ++j) {
      const uint mw = tm * TM + r0 + 16u * i, n = tn * TN + c0 + 16u * j;
      if (mw < pc.Mw && n < pc.N)
        store_dst(pc.off_d + (pc.m0 + mw) * pc.dnb0 + n * pc.dnb1 + i2 * pc.dnb2 + i3 * pc.dnb3,
                  acc[4u * i + j]);
    }
}
