/* Typed tasks between a frontend and the engine (ABI 1.4): one versioned, size-prefixed
 * request struct and one result struct per task kind, so JSON exists only at the HTTP and MCP
 * edges and vectors, images or audio cross as typed buffers. Every struct starts with zen_hdr
 * (readers check ZEN_HAS_MEMBER); members are appended, never changed. The engine API
 * (zen/frontend.h) tells which kinds a model serves (task_kinds) and takes them (submit_embed).
 * Text generation still crosses as the JSON of zen_engine_api.submit until its structs land;
 * the kinds below are numbered now so a frontend can ask a model what it serves. */
#ifndef ZEN_TASK_H
#define ZEN_TASK_H

#include <zen/abi.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum zen_task_kind {
  ZEN_TASK_GENERATE = 1u << 0, /* prompt or chat messages in, tokens and text out */
  ZEN_TASK_EMBED = 1u << 1,    /* texts or token ids in, one pooled vector each out */
  ZEN_TASK_RERANK = 1u << 2,   /* a query and documents in, one score each out */
  ZEN_TASK_IMAGE = 1u << 3,    /* a prompt and a size in, an RGB image out, with progress */
  ZEN_TASK_SPEECH = 1u << 4    /* text in, PCM out in chunks */
} zen_task_kind;

/* Why a task failed: the status, a one-line message, and the request member it is about
 * ("inputs[2]"; NULL when none). Valid during the callback only. */
typedef struct zen_task_error {
  zen_hdr h;
  zen_status status;
  const char* message;
  const char* member;
} zen_task_error;

/* ---- embed --------------------------------------------------------------------------------- */
/* One input: UTF-8 text (tokens NULL), tokenized by the model's tokenizer with its special
 * tokens, or token ids as they are (text NULL). */
typedef struct zen_embed_input {
  const char* text;
  uint64_t text_len;
  const int32_t* tokens;
  uint32_t n_tokens;
} zen_embed_input;

typedef struct zen_embed_request {
  zen_hdr h;
  const char* model; /* a served model's id */
  const zen_embed_input* inputs;
  uint32_t n_inputs;
  uint32_t normalize; /* 1: every vector scaled to L2 norm 1 */
} zen_embed_request;

typedef struct zen_embed_result {
  zen_hdr h;
  uint32_t n_vectors; /* one per input, in order */
  uint32_t n_embd;
  const float* vectors;   /* [n_vectors][n_embd], row-major; valid during the callback only */
  uint64_t prompt_tokens; /* all inputs together */
} zen_embed_result;

/* Called once, from a host thread, with the result or the error (the other NULL). Must not
 * block. */
typedef void (*zen_embed_cb)(void* user, const zen_embed_result* result,
                             const zen_task_error* error);

#ifdef __cplusplus
}
#endif

#endif /* ZEN_TASK_H */
