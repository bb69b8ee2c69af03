#version 450
// ARGSORT and TOP_K of rows longer than one chunk (1024): argsort.comp has sorted each chunk
// into the scratch (per row nch chunks of 1024 element indices). One invocation per element:
// its rank in the row is its position in its own chunk plus, for every other chunk, how many
// of that chunk's entries come before it (a binary search: the chunk is sorted); the element
// goes to dst[rank] when rank < nout. The order is a strict total order (sort.glsl), so the
// ranks are a permutation.
// Bindings: src 0, scratch 1, dst 2.
#include "common.glsl"
#include "sort.glsl"

#define CH 1024u
layout(local_size_x = 64) in;

layout(push_constant) uniform PC {
  uint off_a, off_s, off_d, stype;
  uint ne0, ne1, ne2, ne3;
  uint anb0, anb1, anb2, anb3;
  uint dnb0, dnb1, dnb2, dnb3;
  uint desc, nout, nch;
} pc;

void main() {
  const uint i = global_id(64u);
  if (i >= pc.ne0 * pc.ne1 * pc.ne2 * pc.ne3) return;
  const uint r = i / pc.ne0, pos = i % pc.ne0, c = pos / CH;
  const uint i1 = r % pc.ne1, i2 = (r / pc.ne1) % pc.ne2, i3 = r / (pc.ne1 * pc.ne2);
  const uint a = pc.off_a + i1 * pc.anb1 + i2 * pc.anb2 + i3 * pc.anb3;
  const uint srow = pc.off_s + r * pc.nch * CH * 4u;
  const bool desc = pc.desc != 0u;
  const int e = int(rd32_1(srow + pos * 4u));
  const float v = rdf_0(pc.stype, a + uint(e) * pc.anb0);
  uint rank = pos % CH;
  for (uint o = 0u; o < pc.nch; ++o) {
    if (o == c) continue;
    // First position of chunk o whose entry does not come before e.
    uint lo = 0u, hi = min(CH, pc.ne0 - o * CH);
    while (lo < hi) {
      const uint mid = (lo + hi) >> 1;
      const int f = int(rd32_1(srow + (o * CH + mid) * 4u));
      if (sort_before(rdf_0(pc.stype, a + uint(f) * pc.anb0), f, v, e, desc))
        lo = mid + 1u;
      else
        hi = mid;
    }
    rank += lo;
  }
  if (rank < pc.nout)
    wr32_2(pc.off_d + rank * pc.dnb0 + i1 * pc.dnb1 + i2 * pc.dnb2 + i3 * pc.dnb3, uint(e));
}
