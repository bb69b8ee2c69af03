#version 450
// ARGSORT (ascending or descending) and TOP_K (the k largest, largest first) over ne0 of an
// F32/F16/BF16 row, I32 indices out. One workgroup per chunk of 1024 elements of a row: a
// bitonic sort of (value, index) pairs in shared memory, padded to a power of two P <= 1024
// with entries that sort last (order: sort.glsl). A row of one chunk writes its first nout
// indices to dst; longer rows write every chunk's sorted indices (nout = 1024) to a scratch
// of 1024 words per chunk, which argsort_merge.comp merges.
// Bindings: src 0, dst or scratch 1.
#include "common.glsl"
#include "sort.glsl"

#define WG 256u
#define PMAX 1024u
layout(local_size_x = 256) in;

layout(push_constant) uniform PC {
  uint off_a, off_d, stype, desc;
  uint ne0, ne1, ne2, ne3;
  uint anb0, anb1, anb2, anb3;
  uint dnb0, dnb1, dnb2, dnb3;
  uint P, nout;  // padded length; indices written per chunk (ne0 or k; 1024 for the scratch)
  uint nch;      // chunks per row
} pc;

shared float kv[PMAX];
shared int ki[PMAX];

// Does entry x come before entry y? Padding (index -1) comes after everything.
bool before(uint x, uint y) {
  if (ki[y] < 0) return ki[x] >= 0;
  if (ki[x] < 0) return false;
  return sort_before(kv[x], ki[x], kv[y], ki[y], pc.desc != 0u);
}

void main() {
  const uint g = group_id(), tid = gl_LocalInvocationID.x;
  const uint r = g / pc.nch, c = g % pc.nch, c0 = c * PMAX;
  if (r >= pc.ne1 * pc.ne2 * pc.ne3) return;
  const uint len = min(PMAX, pc.ne0 - c0);
  const uint i1 = r % pc.ne1, i2 = (r / pc.ne1) % pc.ne2, i3 = r / (pc.ne1 * pc.ne2);
  const uint a = pc.off_a + i1 * pc.anb1 + i2 * pc.anb2 + i3 * pc.anb3;
  for (uint i = tid; i < pc.P; i += WG) {
    kv[i] = i < len ? rdf_0(pc.stype, a + (c0 + i) * pc.anb0) : 0.0;
    ki[i] = i < len ? int(c0 + i) : -1;
  }
  barrier();
  for (uint k = 2u; k <= pc.P; k <<= 1)
    for (uint j = k >> 1; j > 0u; j >>= 1) {
      for (uint i = tid; i < pc.P; i += WG) {
        const uint l = i ^ j;
        if (l > i) {
          const bool up = (i & k) == 0u;
          if (up ? before(l, i) : before(i, l)) {
            const float tv = kv[i];
            kv[i] = kv[l];
            kv[l] = tv;
            const int ti = ki[i];
            ki[i] = ki[l];
            ki[l] = ti;
          }
        }
      }
      barrier();
    }
  const uint d = pc.off_d + i1 * pc.dnb1 + i2 * pc.dnb2 + i3 * pc.dnb3 + c0 * pc.dnb0;
  for (uint i = tid; i < min(len, pc.nout); i += WG) wr32_1(d + i * pc.dnb0, uint(ki[i]));
}
