/* The compute graph as it crosses the plugin boundary, and the host's graph-builder table.
 *
 * Conventions (as in GGUF/ggml): ne[0] is the innermost (contiguous) dimension, nb[i] is the
 * byte stride of dimension i, unused dimensions have ne = 1. A matmul of weight A [K, M] by
 * activations B [K, N] gives [M, N]: every output element is a dot product over K.
 *
 * The op set is versioned and append-only: an op id is never reused or renumbered. A device
 * that does not know an op says so through supports_op and the graph scheduler puts it
 * elsewhere; the op list is not a reason to bump the ABI major.
 */
#ifndef ZEN_GRAPH_H
#define ZEN_GRAPH_H

#include <zen/abi.h>
#include <zen/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ZEN_MAX_DIMS 4
#define ZEN_MAX_SRC 6
#define ZEN_MAX_OP_PARAMS 16

typedef enum zen_op {
  ZEN_OP_NONE = 0,       /* leaf: graph input, model weight or persistent state (KV) */
  ZEN_OP_GET_ROWS = 1,   /* src0 [K, R] any type, src1 I32 ids [N] -> F32 [K, N] */
  ZEN_OP_MATMUL = 2,     /* src0 [K, M] any type, src1 F32 [K, N, ...] -> F32 [M, N, ...] */
  ZEN_OP_MATMUL_ID = 3,  /* src0 experts [K, M, E], src1 F32 [K, U, N], src2 I32 ids [U, N] */
  ZEN_OP_ADD = 4,        /* broadcasting src1 over src0 */
  ZEN_OP_MUL = 5,        /* broadcasting src1 over src0 */
  ZEN_OP_SCALE = 6,      /* params: f32 scale, f32 bias */
  ZEN_OP_RMS_NORM = 7,   /* params: f32 eps; over ne[0] */
  ZEN_OP_LAYER_NORM = 8, /* params: f32 eps; over ne[0] */
  ZEN_OP_GROUP_NORM = 9, /* params: i32 groups, f32 eps */
  ZEN_OP_ROPE = 10,      /* src0 [D, H, N], src1 I32 positions; params: see zen_rope_params */
  ZEN_OP_SOFTMAX = 11,   /* over ne[0]; optional src1 mask; params: f32 scale */
  ZEN_OP_ATTENTION = 12, /* q, k, v, optional mask; params: zen_attention_params */
  ZEN_OP_SILU = 13,
  ZEN_OP_GELU = 14,    /* params: i32 0 = tanh approximation, 1 = erf */
  ZEN_OP_GLU = 15,     /* act(src0) * src1; params: i32 0 = swiglu, 1 = geglu-tanh, 2 = geglu-erf */
  ZEN_OP_ARGSORT = 16, /* over ne[0]; params: i32 0 = ascending, 1 = descending -> I32 */
  ZEN_OP_TOP_K = 17,   /* over ne[0]; params: i32 k -> I32 indices */
  ZEN_OP_CONV1D = 18,
  ZEN_OP_CONV2D = 19,
  ZEN_OP_CONV_TRANSPOSE1D = 20,
  ZEN_OP_CONCAT = 21, /* params: i32 dim */
  ZEN_OP_CPY = 22,    /* copy src0 into a contiguous tensor of this tensor's type (converts) */
  ZEN_OP_VIEW = 23,   /* no compute: aliases view_src's memory with own ne/nb/view_offset */
  ZEN_OP_UPSAMPLE = 24,
  ZEN_OP_CUSTOM = 25, /* escape hatch: params[0..1] name a custom kernel a device registered */
  /* src0 destination [K, R] (a state tensor or a view of one), src1 F32 rows [K, N], src2 I32
   * distinct row ids [N]: row n of src1 is written (converted) into row src2[n] of src0. The
   * result aliases src0: take views of the result, not of src0, so readers run after it. */
  ZEN_OP_SET_ROWS = 26,
  ZEN_OP_TANH = 27, /* ABI 1.8: a classifier head's pooler (BERT cross-encoders) */
  ZEN_OP_COUNT      /* one past the last op this header knows; grows */
} zen_op;

typedef enum zen_tensor_flags {
  ZEN_TENSOR_INPUT = 1u << 0,  /* filled by the caller before compute */
  ZEN_TENSOR_OUTPUT = 1u << 1, /* read by the caller after compute: never reused by the planner */
  ZEN_TENSOR_WEIGHT = 1u << 2, /* model parameter, lives in a weight buffer */
  ZEN_TENSOR_STATE = 1u << 3   /* persistent across graphs (KV cache) */
} zen_tensor_flags;

typedef struct zen_buffer zen_buffer; /* device-owned; opaque to everyone else */

typedef struct zen_tensor {
  uint32_t op;   /* zen_op */
  uint32_t type; /* zen_type of this tensor's elements */
  int64_t ne[ZEN_MAX_DIMS];
  uint64_t nb[ZEN_MAX_DIMS];
  int32_t src[ZEN_MAX_SRC];          /* indices into the graph's tensors, -1 = none */
  int32_t params[ZEN_MAX_OP_PARAMS]; /* op parameters; floats stored bit-cast */
  uint32_t flags;                    /* zen_tensor_flags */
  int32_t view_src;                  /* ZEN_OP_VIEW: the tensor whose memory this aliases */
  uint64_t view_offset;              /* ZEN_OP_VIEW: byte offset into view_src */
  zen_buffer* buffer;                /* where the data lives (set by the graph scheduler) */
  uint64_t offset;                   /* byte offset into buffer */
  void* data; /* host address of the data when the buffer is host-visible, else NULL */
  const char* name;
} zen_tensor;

typedef struct zen_graph {
  zen_hdr h;
  uint32_t tensor_stride; /* sizeof(zen_tensor) as the writer compiled it */
  uint32_t n_tensors;
  const zen_tensor* tensors; /* index with zen_graph_tensor(): never with tensors[i] */
  uint32_t n_nodes;          /* tensors to compute, in execution order */
  const int32_t* nodes;
} zen_graph;

static inline const zen_tensor* zen_graph_tensor(const zen_graph* g, int32_t i) {
  return (const zen_tensor*)((const char*)g->tensors + (size_t)i * g->tensor_stride);
}

static inline float zen_param_f32(const zen_tensor* t, int i) {
  union {
    int32_t i;
    float f;
  } u;
  u.i = t->params[i];
  return u.f;
}

/* ---- the host's graph builder ("graph" in zen_host_api.get_api) -------------------------- */
/* Architecture plugins build graphs through this table; shapes are inferred and checked by
 * the host, so a wrong shape is reported at build time with the op and the shapes involved. */
typedef struct zen_graph_builder zen_graph_builder;
typedef int32_t zen_t; /* tensor handle within one builder; negative = error (see last_error) */

typedef struct zen_graph_api {
  zen_hdr h;
  /* A graph input the caller fills before compute (token ids, positions, masks). */
  zen_t (*input)(zen_graph_builder* b, const char* name, uint32_t type, uint32_t n_dims,
                 const int64_t* ne);
  /* A model weight bound by name (the tensor's type and shape come from the model). */
  zen_t (*weight)(zen_graph_builder* b, const char* name);
  /* Any compute op; the result's shape and type are inferred from the op and sources. */
  zen_t (*op)(zen_graph_builder* b, uint32_t op, const zen_t* srcs, uint32_t n_srcs,
              const int32_t* params, uint32_t n_params);
  /* A strided view of src (reshape, permute, slice): no copy. */
  zen_t (*view)(zen_graph_builder* b, zen_t src, uint32_t n_dims, const int64_t* ne,
                const uint64_t* nb, uint64_t offset);
  /* Mark a tensor as a graph output, readable after compute. */
  zen_status (*output)(zen_graph_builder* b, zen_t t, const char* name);
  /* Shape and type of a handle; returns 0 for a bad handle. */
  int (*shape)(zen_graph_builder* b, zen_t t, int64_t* ne /*[ZEN_MAX_DIMS]*/, uint32_t* type);
  /* Why the last call failed (one line), or "" when nothing failed. */
  const char* (*last_error)(zen_graph_builder* b);
  /* ---- appended in 1.0 after the first draft; check with ZEN_HAS_MEMBER ---- */
  /* Byte strides of a handle (what permute and slice views are computed from); 0 for a bad
   * handle. */
  int (*strides)(zen_graph_builder* b, zen_t t, uint64_t* nb /*[ZEN_MAX_DIMS]*/);
  /* ---- appended in 1.1 ---- */
  /* Persistent state bound by name (a layer's KV cache: "cache.k.<layer>"), owned by the
   * runtime and kept across graphs; written with ZEN_OP_SET_ROWS. */
  zen_t (*state)(zen_graph_builder* b, const char* name);
  /* ---- appended in 1.4 ---- */
  /* Names an op's result ("attn_norm-3": what, dash, layer, as llama.cpp's callbacks do) so a
   * caller can ask the runtime to keep and dump it; names are unique within a graph, and a
   * tensor keeps its first name (naming it again with the same name is a no-op). */
  zen_status (*name)(zen_graph_builder* b, zen_t t, const char* name);
} zen_graph_api;

#define ZEN_GRAPH_API_NAME "graph"

/* ---- parameter slots (zen_tensor.params indices) of ops with several parameters ---------- */
/* Trailing parameters a builder call leaves out get the defaults in brackets. */
typedef enum zen_rope_params {
  ZEN_ROPE_N_DIMS = 0,      /* i32: leading elements of ne[0] rotated (even, <= ne[0]) */
  ZEN_ROPE_MODE = 1,        /* i32: zen_rope_mode [ZEN_ROPE_NORMAL] */
  ZEN_ROPE_CTX_ORIG = 2,    /* i32: training context for YaRN [0] */
  ZEN_ROPE_FREQ_BASE = 3,   /* f32: theta [10000] */
  ZEN_ROPE_FREQ_SCALE = 4,  /* f32: 1 / linear context scaling [1] */
  ZEN_ROPE_EXT_FACTOR = 5,  /* f32: YaRN extrapolation mix [0 = off] */
  ZEN_ROPE_ATTN_FACTOR = 6, /* f32: YaRN magnitude scale [1] */
  ZEN_ROPE_BETA_FAST = 7,   /* f32: YaRN [32] */
  ZEN_ROPE_BETA_SLOW = 8,   /* f32: YaRN [1] */
  /* ---- appended: ZEN_ROPE_MROPE's rotary pairs per position axis (time, height, width,
   * extra) [0]; pair i takes the position of the axis whose section holds i % (sum) ---- */
  ZEN_ROPE_SECTION_0 = 9,
  ZEN_ROPE_SECTION_1 = 10,
  ZEN_ROPE_SECTION_2 = 11,
  ZEN_ROPE_SECTION_3 = 12,
  ZEN_ROPE_N_PARAMS = 13
} zen_rope_params;

typedef enum zen_rope_mode {
  ZEN_ROPE_NORMAL = 0, /* rotate adjacent pairs (x0, x1), (x2, x3), ... */
  ZEN_ROPE_NEOX = 2,   /* rotate (x[i], x[i + n_dims / 2]) */
  ZEN_ROPE_MROPE = 8   /* multi-axis (M-RoPE, image/video models): NEOX pairs, positions I32
                          [4 * T] axis-major (all times, then heights, widths, extras), each
                          pair's axis chosen by ZEN_ROPE_SECTION_* */
} zen_rope_mode;

typedef enum zen_attention_params {
  ZEN_ATTN_SCALE = 0,   /* f32: applied to q.k [1 / sqrt(head dim)] */
  ZEN_ATTN_SOFTCAP = 1, /* f32: logit soft-capping, c * tanh(x / c) [0 = off] */
  /* ---- appended: masks computed from positions (key j of kv row, query i of q) ---- */
  /* Query i sits at kv position pos0 + i (decode against a longer KV cache). */
  ZEN_ATTN_CAUSAL = 2, /* i32: 1 = key j visible only if j <= pos0 + i [0 = off] */
  ZEN_ATTN_WINDOW = 3, /* i32: sliding window W: key j visible only if j > pos0 + i - W [0 = off] */
  ZEN_ATTN_POS0 = 4,   /* i32: kv position of query 0 [L - T: the queries are the last keys] */
  ZEN_ATTN_N_PARAMS = 5
  /* Scores are scale * q.k, then soft-capped, then the mask is added; keys outside the
   * causal/window range get -inf. A query that sees no key at all outputs zeros. */
} zen_attention_params;

#ifdef __cplusplus
}
#endif

#endif /* ZEN_GRAPH_H */
