#version 450
// ADD, MUL (src1 broadcast over src0: its dim i repeats ne[i] / ne1[i] times) and GLU
// (act(src0) * src1, same shapes), all F32 and strided. One thread per element.
// Bindings: src0 0, src1 1, dst 2.
#include "common.glsl"
#include "act.glsl"

layout(local_size_x = 256) in;

layout(push_constant) uniform PC {
  uint off_a, off_b, off_d, op;  // op: 0 add, 1 mul, 2 swiglu, 3 geglu-tanh, 4 geglu-erf
  uint ne0, ne1, ne2, ne3;
  uint anb0, anb1, anb2, anb3;
  uint bne0, bne1, bne2, bne3;
  uint bnb0, bnb1, bnb2, bnb3;
  uint dnb0, dnb1, dnb2, dnb3;
  uint type;  // of all three: F32 (add, mul, glu), F16 or BF16 (glu)
} pc;

void main() {
  const uint i = global_id(256u);
  if (i >= pc.ne0 * pc.ne1 * pc.ne2 * pc.ne3) return;
  const uint i0 = i % pc.ne0, i1 = (i / pc.ne0) % pc.ne1, i2 = (i / (pc.ne0 * pc.ne1)) % pc.ne2,
             i3 = i / (pc.ne0 * pc.ne1 * pc.ne2);
  const float a = rdf_0(pc.type, pc.off_a + i0 * pc.anb0 + i1 * pc.anb1 + i2 * pc.anb2 + i3 * pc.anb3);
  const float b = rdf_1(pc.type, pc.off_b + (i0 % pc.bne0) * pc.bnb0 + (i1 % pc.bne1) * pc.bnb1 +
                          (i2 % pc.bne2) * pc.bnb2 + (i3 % pc.bne3) * pc.bnb3);
  float y;
  switch (pc.op) {
    case 0u: y = a + b; break;
    case 1u: y = a * b; break;
    case 2u: y = silu(a) * b; break;
    case 3u: y = gelu_tanh(a) * b; break;
    default: y = gelu_erf(a) * b; break;
  }
  wrf_2(pc.type, pc.off_d + i0 * pc.dnb0 + i1 * pc.dnb1 + i2 * pc.dnb2 + i3 * pc.dnb3, y);
}
