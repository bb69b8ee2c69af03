/* Architecture plugins: self-describing model families. An architecture names the model types
 * it answers to, declares its hyperparameters with defaults, binds its tensors (shapes checked
 * against the file) and builds the forward graph for a batch. Adding a model touches one
 * plugin file and one CMake line: there is no central enum or switch. */
#ifndef ZEN_ARCH_H
#define ZEN_ARCH_H

#include <zen/abi.h>
#include <zen/graph.h>
#include <zen/task.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum zen_hparam_type {
  ZEN_HP_U32 = 1,
  ZEN_HP_I32 = 2,
  ZEN_HP_F32 = 3,
  ZEN_HP_BOOL = 4,
  ZEN_HP_STRING = 5,
  ZEN_HP_ARRAY_U32 = 6, /* per-layer values (head counts, sliding-window patterns) */
  ZEN_HP_ARRAY_F32 = 7
} zen_hparam_type;

typedef struct zen_hparam_desc {
  const char* key; /* GGUF key; "{arch}" is replaced by general.architecture */
  zen_hparam_type type;
  int required;         /* 1: a model without it is refused, naming the key */
  double default_value; /* used when not required and absent */
  const char* help;     /* one line, shown by `zen-engine inspect` */
} zen_hparam_desc;

/* The host's view of a loaded model: metadata and tensors, read-only ("model" API). */
typedef struct zen_model zen_model;
typedef struct zen_model_api {
  zen_hdr h;
  /* Metadata lookups; return 0 when the key is absent or of another type. */
  int (*get_u32)(const zen_model* m, const char* key, uint32_t* out);
  int (*get_f32)(const zen_model* m, const char* key, float* out);
  int (*get_str)(const zen_model* m, const char* key, const char** out);
  int (*get_array_len)(const zen_model* m, const char* key, uint64_t* out);
  /* Tensor lookup: type and shape of a named tensor; returns 0 when absent. */
  int (*tensor)(const zen_model* m, const char* name, uint32_t* type, uint32_t* n_dims,
                int64_t* ne /*[ZEN_MAX_DIMS]*/);
  /* ---- appended in 1.1 ---- */
  /* Element i of a numeric array (per-layer values); 0 when absent, out of range or not numeric. */
  int (*get_array_f32)(const zen_model* m, const char* key, uint64_t i, float* out);
  int (*get_bool)(const zen_model* m, const char* key, int* out);
} zen_model_api;
#define ZEN_MODEL_API_NAME "model"

/* One micro-batch of tokens from one or more sequences.
 *
 * The runtime owns the KV cache: a pool of kv_size cells per layer, each sequence holding some
 * of them. The graph an architecture builds for a batch reads these inputs, which the runtime
 * fills before compute (T = n_tokens):
 *   "tokens"    I32 [T]          token ids
 *   "positions" I32 [T]          position of each token in its sequence (for rope)
 *   "kv_slots"  I32 [T]          the cache cell each token's K/V row is written to
 *   "kq_mask"   F32 [n_kv, T]    0 where query t may see cell j (same sequence, position of
 *                                j <= position of t), -inf elsewhere
 *   "kq_mask.swa<W>" F32 [n_kv, T]   the same, also hiding cells W or more positions back
 *                                (sliding-window layers; W in decimal, e.g. "kq_mask.swa512")
 *   "out_ids"   I32 [n_outputs]  the tokens whose logits are wanted (rows of the last hidden
 *                                state to send through the output head)
 *   "kv_rows"   I32 [n_kv]       only when batch->gather_kv: the cells attention reads, in
 *                                this order (the masks are then over these rows)
 *   "given_embd" F32 [n_embd, G] only when batch->n_given (ABI 1.5) is G > 0: input
 *                                embeddings given for some tokens (an image's or an audio
 *                                clip's, from a media encoder) instead of looked up
 *   "embd_pick" I32 [T]          with them: token t's input row in the table of the T looked-up
 *                                rows followed by the G given ones (t, or T + g); the SDK's
 *                                BatchInputs::with_given does the pick (zen/arch_blocks.hpp)
 * and states "cache.k.<layer>" / "cache.v.<layer>" of [row, kv_size] (row widths from
 * zen_arch_v1.cache_rows). It marks one output, "logits" F32 [n_vocab, n_outputs].
 *
 * An encoder (zen_arch_v1.model_kind ZEN_MODEL_ENCODER, ABI 1.4) keeps no cache. Every batch
 * holds whole sequences: n_seqs of them, numbered 0 .. n_seqs - 1, each one's tokens together
 * and at positions 0, 1, ... Its graph reads (S = n_seqs):
 *   "tokens", "positions"  as above
 *   "token_types" I32 [T]    segment ids (0 for every token of a single text; a cross-encoder's
 *                            query 0, its document 1)
 *   "kq_mask"   F32 [T, T]   0 where tokens t and j belong to one sequence, -inf elsewhere
 *   "kq_mask.causal" F32 [T, T]  the same, also hiding keys after the query (ABI 1.8: a decoder
 *                            run as an embedding model, such as Qwen3-Embedding)
 *   "kq_mask.swa<W>", "kq_mask.causal.swa<W>"  either, also hiding keys W or more positions
 *                            away (on both sides without causal: EmbeddingGemma's sliding layers)
 *   "seq_mean"  F32 [T, S]   1 / length of s where token t belongs to sequence s, else 0: mean
 *                            pooling is a matmul of the hidden states by it
 *   "seq_first", "seq_last" I32 [S]  each sequence's first and last token (CLS and last-token
 *                            pooling are get_rows of them)
 * and marks one output, "embeddings" F32 [n_embd, S]: one pooled vector per sequence, not
 * normalized (the runtime normalizes when the caller asks), or for a reranker ({arch}.pooling_type
 * 4, rank) its classifier's logits [labels, S]. A plugin whose kind depends on the file (a qwen3
 * GGUF with a pooling type is an embedding model) says so through loaded_kind (ABI 1.8).
 *
 * A media encoder (ZEN_MODEL_MEDIA_ENCODER, ABI 1.5: an image or audio tower with its
 * projector) keeps no cache and reads one input,
 *   "media"     F32 [batch->media_ne]  an image as [width, height, channels] (values as the
 *                                model's preprocessing left them), or audio features as
 *                                [n_mel, frames]
 * and marks one output, "embeddings" F32 [n_embd, N]: N rows a decoder reads as the input
 * embeddings of N consecutive positions ("given_embd" above), so n_embd is the decoder's.
 *
 * A pipeline (ZEN_MODEL_PIPELINE, ABI 1.5: a diffusion model's text encoders, denoiser and
 * VAE; a TTS model's decoder and codec) is driven by the plugin's own run() (zen_arch_v1.run).
 * Its sub-models are graphs like any other: run() asks the runtime (zen_runtime_api) to plan
 * the graph build_graph makes for a batch whose `stage` names the sub-model (the plugin's own
 * numbering, with media_ne for a shape), sets the inputs it declared by name, computes it as
 * often as the loop needs, and reads its outputs by name. */
typedef struct zen_batch {
  zen_hdr h;
  uint32_t n_tokens;
  const int32_t* tokens;    /* [n_tokens] token ids */
  const int32_t* positions; /* [n_tokens] position of each token in its sequence */
  const int32_t* seq_ids;   /* [n_tokens] which sequence each token belongs to */
  const uint8_t* logits;    /* [n_tokens] 1 = produce logits for this token */
  /* ---- appended in 1.1 ---- */
  uint32_t kv_size;   /* cells per layer cache */
  uint32_t n_kv;      /* attention reads cells [0, n_kv) in this batch */
  uint32_t n_outputs; /* tokens with logits[i] = 1 */
  /* ---- appended in 1.2 ---- */
  /* 1: attention reads the n_kv cache cells listed, in that order, by the I32 [n_kv] input
   * "kv_rows" (a gathered copy: deterministic mode); 0: cells [0, n_kv) directly. */
  uint32_t gather_kv;
  /* ---- appended in 1.4 ---- */
  uint32_t n_seqs; /* encoders: sequences in the batch (seq_ids run 0 .. n_seqs - 1) */
  /* ---- appended in 1.5 ---- */
  /* decoders: tokens whose input embedding is given ("given_embd", "embd_pick" above); a graph
   * that does not read them makes the runtime refuse such a batch, naming the model. */
  uint32_t n_given;
  /* media encoders: the shape of the input "media" (unused dimensions 1) */
  uint32_t media_ne[4];
  /* pipelines: which sub-model's graph to build (the plugin's numbering) */
  uint32_t stage;
} zen_batch;

/* What a model is, and so how the runtime drives it (zen_arch_v1.model_kind). Append-only:
 * plugin-driven pipelines (a denoising loop, a codec decoder) get the next value. */
typedef enum zen_model_kind {
  ZEN_MODEL_DECODER = 0,       /* a causal LM over a KV cache, marking "logits" (the default) */
  ZEN_MODEL_ENCODER = 1,       /* a bidirectional encoder with pooling, marking "embeddings" */
  ZEN_MODEL_MEDIA_ENCODER = 2, /* an image/audio tower: "media" in, rows a decoder reads (1.5) */
  ZEN_MODEL_PIPELINE = 3       /* sub-models the plugin drives in run() (1.5) */
} zen_model_kind;

/* ---- pipelines (ABI 1.5) ------------------------------------------------------------------ */
typedef struct zen_runtime zen_runtime;           /* host-owned: one run's devices */
typedef struct zen_stage_runner zen_stage_runner; /* host-owned: one planned sub-model graph */

/* What run() builds and runs sub-models with. Errors are statuses; zen_plugin_last_error's
 * convention does not apply (these are host functions): a failing call's message is in the
 * status the host returns from the whole run. */
typedef struct zen_runtime_api {
  zen_hdr h;
  /* Plans the graph build_graph makes for `shape` (shape->stage, shape->media_ne) on the run's
   * devices; the runner computes it as often as asked. */
  zen_status (*plan)(zen_runtime* rt, const zen_batch* shape, zen_stage_runner** out);
  /* An input the graph declared, whole (its bytes as declared). */
  zen_status (*set_input)(zen_stage_runner* r, const char* name, const void* data, uint64_t bytes);
  zen_status (*compute)(zen_stage_runner* r);
  /* An output the graph marked, whole. */
  zen_status (*get_output)(zen_stage_runner* r, const char* name, void* data, uint64_t bytes);
  void (*release)(zen_stage_runner* r);
  /* Nonzero once the request was cancelled: run() stops between steps and returns
   * ZEN_ERR_CANCELLED. */
  int (*cancelled)(zen_runtime* rt);
} zen_runtime_api;

/* One request for a pipeline: the task's typed request in, the task's typed events out, as a
 * frontend receives them (zen/task.h). run() sends progress and finally the result (last = 1);
 * when it fails it sends no last event and returns the status and message instead. */
typedef struct zen_pipeline_call {
  zen_hdr h;
  uint32_t task;                  /* one zen_task_kind bit the plugin declared in pipeline_tasks */
  const zen_image_request* image; /* ZEN_TASK_IMAGE */
  zen_image_cb on_image;
  const zen_speech_request* speech; /* ZEN_TASK_SPEECH */
  zen_speech_cb on_speech;
  void* user; /* for the callbacks */
  zen_runtime* runtime;
  const zen_runtime_api* api;
} zen_pipeline_call;

/* ---- Hugging Face directories (ABI 1.6) ------------------------------------------------------
 * How a model published as a Hugging Face directory (config.json, safetensors shards) maps onto
 * the GGUF names the plugin reads: the host builds the model's metadata and tensors from these
 * rows, so the plugin sees the same model either way. Each plugin carries its own rows (there
 * is no central table); the HF class it answers to is one of its names. */
typedef struct zen_hf_key {
  const char* gguf; /* "{arch}.embedding_length" */
  /* config.json path: dotted for nesting ("rope_parameters.rope_theta"), '|' between
   * alternatives tried in order ("rope_theta|rope_parameters.rope_theta"). Absent everywhere:
   * the key is left out (the plugin's default). Several rows may give one GGUF key: the last
   * row whose path is present wins (a family's shared rows, then a plugin's own). */
  const char* hf;
  uint32_t type; /* zen_hparam_type of the GGUF value (ARRAY_U32 / ARRAY_F32 from a JSON array) */
  /* Non-NULL: a string (or each string of an array) becomes 1 where it equals this, else 0
   * ("layer_types" == "sliding_attention" -> a per-layer flag array). */
  const char* equals;
} zen_hf_key;

typedef enum zen_hf_transform {
  ZEN_HF_AS_IS = 0,
  /* Rows of each head reordered from rotate-half to adjacent pairs (what GGUF converters do to
   * Llama's q/k so that ZEN_ROPE_NORMAL rotates them); the head size is
   * {arch}.attention.key_length, else embedding_length / head_count. */
  ZEN_HF_ROPE_PAIRS = 1,
  ZEN_HF_PLUS_ONE = 2, /* norm weights stored as w - 1 (Gemma): the model reads w */
  /* Generated, no HF tensor: Llama 3 context scaling's per-pair rope factors from
   * {arch}.rope.scaling.{factor, low_freq_factor, high_freq_factor, original_context_length}
   * and rope.freq_base; left out unless {arch}.rope.scaling.type is "llama3". */
  ZEN_HF_LLAMA3_ROPE_FACTORS = 3
} zen_hf_transform;

typedef struct zen_hf_tensor {
  const char* gguf; /* "blk.{L}.attn_q.weight": {L} runs over {arch}.block_count */
  /* "model.layers.{L}.self_attn.q_proj.weight"; {E} runs over {arch}.expert_count and the
   * experts are stacked along a new outermost dimension. Absent in the checkpoint: the tensor is
   * left out (the plugin decides whether it is required). */
  const char* hf;
  uint32_t transform; /* zen_hf_transform */
} zen_hf_tensor;

typedef struct zen_hf_map {
  zen_hdr h;
  const zen_hf_key* keys;
  uint32_t n_keys;
  const zen_hf_tensor* tensors;
  uint32_t n_tensors;
} zen_hf_map;

typedef struct zen_arch_model zen_arch_model; /* plugin-owned state for one loaded model */

typedef struct zen_arch_v1 {
  zen_hdr h;
  const char* const* names; /* general.architecture values and HF class names it answers to */
  uint32_t n_names;
  const zen_hparam_desc* hparams;
  uint32_t n_hparams;
  /* Read hyperparameters and bind tensors; a missing or misshapen tensor is an error naming it
   * (written to err). */
  zen_status (*load)(const zen_model* model, zen_arch_model** out, char* err, size_t err_len);
  void (*unload)(zen_arch_model* am);
  /* Build the forward graph for `batch` with the host's builder; marks the logits output. */
  zen_status (*build_graph)(zen_arch_model* am, zen_graph_builder* g, const zen_batch* batch,
                            char* err, size_t err_len);
  /* ---- appended in 1.1 ---- */
  /* Row widths (elements) of layer `layer`'s K and V caches; 0 and 0 for a layer without
   * attention. Returns ZEN_ERR_NOT_FOUND past the last layer. */
  zen_status (*cache_rows)(const zen_arch_model* am, uint32_t layer, uint32_t* k_row,
                           uint32_t* v_row);
  /* ---- appended in 1.4 ---- */
  uint32_t model_kind; /* zen_model_kind; absent (an older plugin) = ZEN_MODEL_DECODER. An
                          encoder may leave cache_rows NULL. */
  /* ---- appended in 1.5 ---- */
  uint32_t pipeline_tasks; /* ZEN_MODEL_PIPELINE: the zen_task_kind bits run() answers */
  zen_status (*run)(zen_arch_model* am, const zen_pipeline_call* call, char* err, size_t err_len);
  /* ---- appended in 1.6 ---- */
  const zen_hf_map* hf; /* how a Hugging Face directory maps onto its names; NULL: none */
  /* ---- appended in 1.8 ---- */
  /* The kind of this loaded model when it depends on the file (a qwen3 GGUF with
   * {arch}.pooling_type is an embedding or reranking encoder); NULL: model_kind. */
  uint32_t (*loaded_kind)(const zen_arch_model* am);
} zen_arch_v1;

#ifdef __cplusplus
}
#endif

#endif /* ZEN_ARCH_H */
