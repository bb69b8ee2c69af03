#version 450
// ARGSORT (ascending or descending) and TOP_K (the k largest, largest first) over ne0 of an
// F32/F16 row, I32 indices out. One workgroup per row: a bitonic sort of (value, index) pairs
// in shared memory, padded to a power of two P <= 1024 with entries that sort last. Order as
// on the CPU: by value, ties by lower index, NaN larger than every number.
// Bindings: src 0, dst 1.
#include "common.glsl"

#define WG 256u
#define PMAX 1024u
layout(local_size_x = 256) in;

layout(push_constant) uniform PC {
  uint off_a, off_d, stype, desc;
  uint ne0, ne1, ne2, ne3;
  uint anb0, anb1, anb2, anb3;
  uint dnb0, dnb1, dnb2, dnb3;
  uint P, nout;  // padded length; indices written per row (ne0, or k)
} pc;

shared float kv[PMAX];
shared int ki[PMAX];

bool vless(float a, float b) { return !isnan(a) && (isnan(b) || a < b); }
// Does entry x come before entry y? Padding (index -1) comes after everything.
bool before(uint x, uint y) {
  if (ki[y] < 0) return ki[x] >= 0;
  if (ki[x] < 0) return false;
  const float a = kv[x], b = kv[y];
  if (pc.desc != 0u) return vless(b, a) || (!vless(a, b) && ki[x] < ki[y]);
  return vless(a, b) || (!vless(b, a) && ki[x] < ki[y]);
}

void main() {
  const uint r = group_id(), tid = gl_LocalInvocationID.x;
  if (r >= pc.ne1 * pc.ne2 * pc.ne3) return;
  const uint i1 = r % pc.ne1, i2 = (r / pc.ne1) % pc.ne2, i3 = r / (pc.ne1 * pc.ne2);
  const uint a = pc.off_a + i1 * pc.anb1 + i2 * pc.anb2 + i3 * pc.anb3;
  for (uint i = tid; i < pc.P; i += WG) {
    kv[i] = i < pc.ne0 ? rdf_0(pc.stype, a + i * pc.anb0) : 0.0;
    ki[i] = i < pc.ne0 ? int(i) : -1;
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
  const uint d = pc.off_d + i1 * pc.dnb1 + i2 * pc.dnb2 + i3 * pc.dnb3;
  for (uint i = tid; i < pc.nout; i += WG) wr32_1(d + i * pc.dnb0, uint(ki[i]));
}
