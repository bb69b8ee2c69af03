// Shared by every shader. All tensors are bound as raw 32-bit words (binding 0, an array of
// six storage buffers) and addressed in bytes, so one layout serves every element type:
// F16 and the block formats sit at 2-byte offsets the word loads below take apart.
// The host binds each tensor at its offset rounded down to minStorageBufferOffsetAlignment
// and passes the rest in push constants (the shaders' off[] fields).
#extension GL_EXT_control_flow_attributes : enable

layout(std430, set = 0, binding = 0) buffer Buf { uint w[]; } bufs[6];

#define TYPE_F32 0u
#define TYPE_F16 1u
#define TYPE_I32 26u
#define TYPE_BF16 30u

// bfloat16 <-> float (round to nearest even, quiet NaNs), as zen/half.hpp.
float bf16_to_f32(uint h) { return uintBitsToFloat(h << 16); }
uint f32_to_bf16(float f) {
  const uint x = floatBitsToUint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (x >> 16) | 0x40u;
  return (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
}

// Byte-addressed loads from binding B (a literal: arrays of buffers are indexed by constants).
#define DEF_LOADS(B)                                                                   \
  uint rd8_##B(uint o) { return (bufs[B].w[o >> 2] >> ((o & 3u) * 8u)) & 0xffu; }      \
  uint rd16_##B(uint o) { return (bufs[B].w[o >> 2] >> ((o & 2u) * 8u)) & 0xffffu; }   \
  uint rd32_##B(uint o) {                                                              \
    const uint s = (o & 3u) * 8u;                                                      \
    const uint a = bufs[B].w[o >> 2];                                                  \
    return s == 0u ? a : (a >> s) | (bufs[B].w[(o >> 2) + 1u] << (32u - s));           \
  }                                                                                    \
  float rdf16_##B(uint o) { return unpackHalf2x16(rd16_##B(o)).x; }                    \
  float rdf32_##B(uint o) { return uintBitsToFloat(bufs[B].w[o >> 2]); }               \
  float rdf_##B(uint t, uint o) {                                                      \
    if (t == TYPE_F16) return rdf16_##B(o);                                            \
    if (t == TYPE_BF16) return bf16_to_f32(rd16_##B(o));                               \
    if (t == TYPE_I32) return float(int(bufs[B].w[o >> 2]));                           \
    return rdf32_##B(o);                                                               \
  }

// Stores to binding B. A 16-bit store updates its half of the word with two atomics, so
// threads writing the two halves of one word never lose each other's bits.
#define DEF_STORES(B)                                                                  \
  void wrf32_##B(uint o, float v) { bufs[B].w[o >> 2] = floatBitsToUint(v); }          \
  void wr32_##B(uint o, uint v) { bufs[B].w[o >> 2] = v; }                             \
  void wr16_##B(uint o, uint v) {                                                      \
    const uint s = (o & 2u) * 8u;                                                      \
    atomicAnd(bufs[B].w[o >> 2], ~(0xffffu << s));                                     \
    atomicOr(bufs[B].w[o >> 2], (v & 0xffffu) << s);                                   \
  }                                                                                    \
  void wrf_##B(uint t, uint o, float v) {                                              \
    if (t == TYPE_F16)                                                                 \
      wr16_##B(o, packHalf2x16(vec2(v, 0.0)));                                         \
    else if (t == TYPE_BF16)                                                           \
      wr16_##B(o, f32_to_bf16(v));                                                     \
    else if (t == TYPE_I32)                                                            \
      wr32_##B(o, uint(int(v)));                                                       \
    else                                                                               \
      wrf32_##B(o, v);                                                                 \
  }

DEF_LOADS(0)
DEF_LOADS(1)
DEF_LOADS(2)
DEF_LOADS(3)
DEF_STORES(0)
DEF_STORES(1)
DEF_STORES(2)
DEF_STORES(3)

// A bad row id (get_rows, set_rows) cannot throw: it is recorded in the device's status
// buffer (binding 3 of those shaders: what, id, limit), which synchronize() turns into an error.
void report_bad_id(uint what, int id, uint limit) {
  if (atomicCompSwap(bufs[3].w[0], 0u, what) == 0u) {
    bufs[3].w[1] = uint(id);
    bufs[3].w[2] = limit;
  }
}

// Workgroups are dispatched as a 2D grid (x <= 65535) when there are more than 65535.
uint group_id() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }
uint global_id(uint wg_size) { return group_id() * wg_size + gl_LocalInvocationID.x; }

