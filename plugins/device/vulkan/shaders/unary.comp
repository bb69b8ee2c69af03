#version 450
// SCALE (x * s + bias), SILU, GELU (tanh or erf), F32/F16/BF16 (in float), strided. One thread per element.
// Bindings: src 0, dst 1.
#include "common.glsl"
#include "act.glsl"

layout(local_size_x = 256) in;

layout(push_constant) uniform PC {
  uint off_a, off_d, op;  // op: 0 scale, 1 silu, 2 gelu-tanh, 3 gelu-erf, 4 tanh
  float s, bias;
  uint ne0, ne1, ne2, ne3;
  uint anb0, anb1, anb2, anb3;
  uint dnb0, dnb1, dnb2, dnb3;
  uint type;  // of src and dst: F32, F16 or BF16 (computed in float)
} pc;

void main() {
  const uint i = global_id(256u);
  if (i >= pc.ne0 * pc.ne1 * pc.ne2 * pc.ne3) return;
  const uint i0 = i % pc.ne0, i1 = (i / pc.ne0) % pc.ne1, i2 = (i / (pc.ne0 * pc.ne1)) % pc.ne2,
             i3 = i / (pc.ne0 * pc.ne1 * pc.ne2);
  const float x = rdf_0(pc.type, pc.off_a + i0 * pc.anb0 + i1 * pc.anb1 + i2 * pc.anb2 + i3 * pc.anb3);
  float y;
  switch (pc.op) {
    case 0u: y = x * pc.s + pc.bias; break;
    case 1u: y = silu(x); break;
    case 2u: y = gelu_tanh(x); break;
    case 4u: y = tanh(x); break;
    default: y = gelu_erf(x); break;
  }
  wrf_1(pc.type, pc.off_d + i0 * pc.dnb0 + i1 * pc.dnb1 + i2 * pc.dnb2 + i3 * pc.dnb3, y);
}
