// Shared definitions of every kernel. Files are concatenated in name order into one program,
// so this one comes first.
//
// A tensor crosses into a kernel as four arguments: its buffer, the byte offset of its first
// element in that buffer, ne and nb (the graph's shape and byte strides). Kernels index through
// nb, so views (permuted, sliced KV cache) work without copies.
#define TENSOR(n) global uchar *n##_b, ulong n##_o, long4 n##_ne, long4 n##_nb
#define BASE(n) (n##_b + n##_o)

// zen_type ids (sdk/include/zen/types.h).
#define T_F32 0
#define T_F16 1
#define T_Q4_0 2
#define T_Q4_1 3
#define T_Q5_0 6
#define T_Q5_1 7
#define T_Q8_0 8
#define T_Q2_K 10
#define T_Q3_K 11
#define T_Q4_K 12
#define T_Q5_K 13
#define T_Q6_K 14
#define T_IQ4_NL 20
#define T_IQ4_XS 23
#define T_I32 26
#define T_BF16 30
#define T_MXFP4 39

// Sums over many values and resampling coordinates: double where the device has cl_khr_fp64
// (the host defines ZEN_FP64 then), as the CPU device computes them; float otherwise.
#ifdef ZEN_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double wide_t;
#else
typedef float wide_t;
#endif

// Half values are read as raw 16 bits with vload_half (core OpenCL): cl_khr_fp16 is not needed.
inline float ld_half(global const uchar* p) { return vload_half(0, (global const half*)p); }

// BF16 is the high half of an F32.
inline float ld_bf16(global const uchar* p) {
  return as_float((uint)(*(global const ushort*)p) << 16);
}

// F32 -> BF16 rounding to nearest even, NaN kept quiet (zen/half.hpp's float_to_bf16).
inline ushort to_bf16(float v) {
  uint x = as_uint(v);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (ushort)((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (ushort)(x >> 16);
}

inline float load_f(global const uchar* p, int type) {
  if (type == T_F16) return ld_half(p);
  if (type == T_BF16) return ld_bf16(p);
  return *(global const float*)p;
}

inline void store_f(global uchar* p, float v, int type) {
  if (type == T_F16)
    vstore_half_rte(v, 0, (global half*)p);
  else if (type == T_BF16)
    *(global ushort*)p = to_bf16(v);
  else
    *(global float*)p = v;
}

// Element i of a row whose elements (or Q8_0 blocks) are nb0 bytes apart: attention's K and V.
inline float load_elem(global const uchar* row, long i, long nb0, int type) {
  if (type == T_Q8_0) {
    global const uchar* blk = row + (i / 32) * nb0;
    return ld_half(blk) * (float)((global const char*)blk)[2 + i % 32];
  }
  return load_f(row + i * nb0, type);
}

inline long at4(long4 nb, long i0, long i1, long i2, long i3) {
  return i0 * nb.s0 + i1 * nb.s1 + i2 * nb.s2 + i3 * nb.s3;
}

// Linear index e of a [ne] tensor as (i0, i1, i2, i3), ne0 fastest.
inline long4 unravel(long e, long4 ne) {
  long4 i;
  i.s0 = e % ne.s0;
  e /= ne.s0;
  i.s1 = e % ne.s1;
  e /= ne.s1;
  i.s2 = e % ne.s2;
  i.s3 = e / ne.s2;
  return i;
}
