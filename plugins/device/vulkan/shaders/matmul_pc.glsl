// The push constants of matmul.glsl, matvec.comp and matmul_tiled.comp (one recorder fills
// them: vk_ops.cpp, rec_matmul), and their store of a dst element. Requires common.glsl.
layout(push_constant) uniform PC {
  uint off_a, off_b, off_d, off_ids;
  uint M, N, B2, B3;              // dst shape (mode 1: M, U, T, 1)
  uint dnb0, dnb1, dnb2, dnb3;    // dst strides
  uint anb0, anb1, anb2, anb3;    // a strides (anb0: element stride of float rows)
  uint K, A2, A3, E;              // a shape beyond rows (E = a.ne[2] for mode 1)
  uint bnb0, bnb1, bnb2, bnb3;    // b strides
  uint atype, m0, Mw, mode;
  uint inb0, inb1, U1, fuse_add;  // ids strides, b.ne[1] (mode 1); see store_dst
} pc;

// Stores the dst element at byte o. fuse_add (mode 0 only; vk_ops.cpp, rec_matmul_add): the
// ADD of a residual that follows the matmul runs here too: sum = residual + value at the same
// place relative to each one's start (both laid out as dst) in binding 5, the residual at byte
// inb0 and the sum at inb1 (the ids' words, unused in mode 0). IEEE addition commutes, so this
// is the ADD's own result whichever of its sources the matmul was.
void store_dst(uint o, float v) {
  wrf32_2(o, v);
  if (pc.fuse_add != 0u) {
    const uint rel = o - pc.off_d;
    const float r = uintBitsToFloat(bufs[5].w[(pc.inb0 + rel) >> 2]);
    bufs[5].w[(pc.inb1 + rel) >> 2] = floatBitsToUint(r + v);
  }
}
