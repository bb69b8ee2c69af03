// The push constants of matmul.glsl and matvec.comp (one recorder fills both: vk_ops.cpp,
// rec_matmul).
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
