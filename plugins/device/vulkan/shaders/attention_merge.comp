#version 450
// Split-K attention's merge: one workgroup per output row (query head, query, sequence)
// combines the parts attention_sg.comp wrote to the scratch (binding 0; per part and row:
// m, l, then Dv unnormalized outputs) into dst (binding 1, F32 [Dv, Hq, T, S]):
//   M = max_p m_p, w_p = e^(m_p - M) (0 for a part that saw no key),
//   out = sum_p w_p acc_p / sum_p w_p l_p, zeros where no part saw a key (as attention.comp).
#include "common.glsl"

layout(local_size_x = 64) in;

layout(push_constant) uniform PC {
  uint off_s, off_d, Dv, rows, parts;
} pc;

float part_w(uint p, uint row, float mx) {
  const float mp = uintBitsToFloat(bufs[0].w[(pc.off_s >> 2) + (p * pc.rows + row) * (pc.Dv + 2u)]);
  return mp > -1.0 / 0.0 ? exp(mp - mx) : 0.0;
}

void main() {
  const uint row = group_id(), tid = gl_LocalInvocationID.x;
  if (row >= pc.rows) return;
  const uint stride = pc.rows * (pc.Dv + 2u), base = (pc.off_s >> 2) + row * (pc.Dv + 2u);
  float mx = -1.0 / 0.0;
  for (uint p = 0u; p < pc.parts; ++p) mx = max(mx, uintBitsToFloat(bufs[0].w[base + p * stride]));
  float sum = 0.0;
  for (uint p = 0u; p < pc.parts; ++p)
    sum += part_w(p, row, mx) * uintBitsToFloat(bufs[0].w[base + p * stride + 1u]);
  const float inv = sum > 0.0 ? 1.0 / sum : 0.0;
  const uint o = (pc.off_d >> 2) + row * pc.Dv;
  for (uint i = tid; i < pc.Dv; i += 64u) {
    float a = 0.0;
    for (uint p = 0u; p < pc.parts; ++p) {
      const float w = part_w(p, row, mx);
      if (w > 0.0) a += w * uintBitsToFloat(bufs[0].w[base + p * stride + 2u + i]);
    }
    bufs[1].w[o + i] = floatBitsToUint(a * inv);
  }
}
