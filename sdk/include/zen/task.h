/* Typed tasks between a frontend and the engine (ABI 1.4, generation and tokenizing 1.5): one
 * versioned, size-prefixed request struct and one result or event struct per task kind, so
 * JSON exists only at the HTTP and MCP edges and vectors, images or audio cross as typed
 * buffers. Every top-level struct starts with zen_hdr (readers check ZEN_HAS_MEMBER); members
 * are appended, never changed. Element structs of arrays (zen_chat_message, zen_tool, ...)
 * have no header and are frozen: what they lack later goes into the parent as a parallel array.
 * Texts are zen_str (UTF-8, length-counted, may hold NUL); every pointer in a request is only
 * read during the submit call (the engine copies), every pointer in a result or event only
 * during the callback. JSON appears inside these structs only where the payload is itself a
 * JSON document the engine hands to the chat template: a tool's parameter schema, a call's
 * arguments, the template's extra variables.
 * The engine API (zen/frontend.h) tells which kinds a model serves (task_kinds) and takes
 * them (submit_generate, submit_embed, ...). docs/SERVING.md has the rules each side keeps. */
#ifndef ZEN_TASK_H
#define ZEN_TASK_H

#include <zen/abi.h>

#include <string.h>

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
 * ("messages[2].content"; NULL when none). Valid during the callback only. */
typedef struct zen_task_error {
  zen_hdr h;
  zen_status status;
  const char* message;
  const char* member;
  /* appended in 1.5 */
  const char* code;   /* a stable machine-readable reason ("context_length_exceeded"); or NULL */
  double retry_after; /* ZEN_ERR_BUSY / ZEN_ERR_UNAVAILABLE: seconds to wait; 0 when unknown */
} zen_task_error;

/* Length-counted UTF-8 text; {NULL, 0} is "absent" or "empty", as each member says. */
typedef struct zen_str {
  const char* ptr;
  uint64_t len;
} zen_str;

/* ---- generate ------------------------------------------------------------------------------ */
typedef enum zen_chat_role {
  ZEN_ROLE_SYSTEM = 0, /* OpenAI's "developer" too */
  ZEN_ROLE_USER = 1,
  ZEN_ROLE_ASSISTANT = 2,
  ZEN_ROLE_TOOL = 3
} zen_chat_role;

typedef enum zen_content_kind {
  ZEN_CONTENT_TEXT = 0,  /* text */
  ZEN_CONTENT_IMAGE = 1, /* data: an encoded image (PNG, JPEG, WebP), mime says which */
  ZEN_CONTENT_AUDIO = 2  /* data: encoded audio (WAV, MP3), mime says which */
} zen_content_kind;

/* One part of a message's content. A model that reads text only refuses other kinds, naming
 * the part. */
typedef struct zen_content_part {
  uint32_t kind; /* zen_content_kind */
  zen_str text;
  const uint8_t* data;
  uint64_t data_len;
  zen_str mime;
} zen_content_part;

/* A tool call of an earlier assistant turn (or one being generated). */
typedef struct zen_tool_call {
  zen_str id;        /* "call_..." */
  zen_str name;      /* the function */
  zen_str arguments; /* a JSON object as text, as the model wrote it; empty: no arguments */
} zen_tool_call;

typedef struct zen_chat_message {
  uint32_t role; /* zen_chat_role */
  const zen_content_part* content;
  uint32_t n_content; /* 0: no content (an assistant turn of tool calls only) */
  zen_str name;       /* the speaker's name (system, user) or the function (tool); optional */
  zen_str reasoning;  /* assistant: its earlier reasoning, for templates that show it */
  const zen_tool_call* tool_calls; /* assistant */
  uint32_t n_tool_calls;
  zen_str tool_call_id; /* tool: the call this message answers */
} zen_chat_message;

/* A function the model may call. */
typedef struct zen_tool {
  zen_str name;
  zen_str description; /* optional */
  zen_str parameters;  /* JSON Schema of the arguments, as text; optional */
} zen_tool;

typedef enum zen_tool_choice {
  ZEN_TOOL_CHOICE_AUTO = 0,     /* the model decides (with tools; "none" without) */
  ZEN_TOOL_CHOICE_NONE = 1,     /* no calls */
  ZEN_TOOL_CHOICE_REQUIRED = 2, /* at least one call */
  ZEN_TOOL_CHOICE_FUNCTION = 3  /* a call of tool_choice_name */
} zen_tool_choice;

typedef enum zen_generate_mode {
  ZEN_GENERATE_CHAT = 0, /* messages through the model's chat template */
  ZEN_GENERATE_TEXT = 1  /* prompt text (or token ids) as it is */
} zen_generate_mode;

typedef struct zen_logit_bias {
  int32_t token;
  float bias; /* added to the token's logit; -INFINITY bans it */
} zen_logit_bias;

/* Which sampler fields a request set (zen_generate_request.sampling_given, ABI 1.6). A field
 * whose bit is clear takes the served model's own default (its general.sampling.* keys: a
 * Hugging Face directory's generation_config.json, or a GGUF that carries them), else the
 * neutral value; zen_generate_defaults() sets every bit (the values given are used). */
typedef enum zen_sampling_field {
  ZEN_SAMPLING_TEMPERATURE = 1u << 0,
  ZEN_SAMPLING_TOP_P = 1u << 1,
  ZEN_SAMPLING_TOP_K = 1u << 2,
  ZEN_SAMPLING_MIN_P = 1u << 3,
  ZEN_SAMPLING_REPEAT_PENALTY = 1u << 4,
  ZEN_SAMPLING_ALL = (1u << 5) - 1
} zen_sampling_field;

/* One LoRA adapter a request runs with (ABI 1.7): by its index in the served model's adapter
 * list, or (id < 0) by its name; scale multiplies the adapter's alpha / rank. */
typedef struct zen_lora_pick {
  int32_t id;
  zen_str name;
  float scale;
} zen_lora_pick;

/* Sampling has llama.cpp's and OpenAI's meanings (docs/SAMPLING.md); zen_generate_defaults()
 * below fills the neutral values (temperature 1, every filter and penalty off). */
typedef struct zen_generate_request {
  zen_hdr h;
  const char* model; /* a served model's id; NULL or "": the only one */
  zen_str tag;       /* the frontend's name for the request ("chatcmpl-..."), for log lines */
  uint32_t mode;     /* zen_generate_mode */
  /* chat */
  const zen_chat_message* messages;
  uint32_t n_messages;
  const zen_tool* tools;
  uint32_t n_tools;
  uint32_t tool_choice; /* zen_tool_choice */
  zen_str tool_choice_name;
  uint32_t parallel_tool_calls; /* 0: calls after the first stay content */
  zen_str template_vars;        /* a JSON object of extra template variables; optional */
  /* text */
  zen_str prompt; /* used when n_prompt_tokens is 0 */
  const int32_t* prompt_tokens;
  uint32_t n_prompt_tokens;
  /* length and choices */
  int32_t max_tokens; /* -1: until the context ends */
  uint32_t n;         /* choices, each sampled on its own */
  const zen_str* stops;
  uint32_t n_stops;
  uint32_t ignore_eos;
  /* sampling */
  float temperature, top_p, min_p, typical_p;
  int32_t top_k;
  float repeat_penalty;
  int32_t repeat_last_n;
  float frequency_penalty, presence_penalty;
  const zen_logit_bias* logit_bias;
  uint32_t n_logit_bias;
  uint32_t has_seed;
  uint64_t seed;
  uint32_t logprobs;     /* report each chosen token's log-probability */
  uint32_t top_logprobs; /* and this many most likely alternatives */
  /* ---- appended in 1.6 ---- */
  uint32_t sampling_given; /* zen_sampling_field bits; absent (an older frontend): all set */
  /* ---- appended in 1.7 ---- */
  /* has_lora 1: the request runs with exactly these adapters (none when n_lora is 0), every
   * other loaded adapter at scale 0; 0 (or an older frontend): the server's default scales. */
  uint32_t has_lora;
  const zen_lora_pick* lora;
  uint32_t n_lora;
} zen_generate_request;

static inline zen_generate_request zen_generate_defaults(void) {
  zen_generate_request r;
  memset(&r, 0, sizeof r);
  r.h.struct_size = (uint32_t)sizeof r;
  r.h.abi_major = ZEN_ABI_MAJOR;
  r.h.abi_minor = ZEN_ABI_MINOR;
  r.parallel_tool_calls = 1;
  r.max_tokens = -1;
  r.n = 1;
  r.temperature = 1.0f;
  r.top_p = 1.0f;
  r.typical_p = 1.0f;
  r.repeat_penalty = 1.0f;
  r.repeat_last_n = 64;
  r.sampling_given = ZEN_SAMPLING_ALL;
  return r;
}

typedef enum zen_generate_event_kind {
  ZEN_EVENT_START = 0,  /* once, first: model, created */
  ZEN_EVENT_DELTA = 1,  /* a choice's next content, reasoning, tool-call pieces, logprobs */
  ZEN_EVENT_FINISH = 2, /* a choice ended: finish_reason (and error for ZEN_FINISH_ERROR) */
  ZEN_EVENT_DONE = 3,   /* once, last after a start: usage */
  ZEN_EVENT_ERROR = 4   /* the request failed before it started (the one and last event) */
} zen_generate_event_kind;

typedef enum zen_finish_reason {
  ZEN_FINISH_STOP = 0,       /* an end-of-generation token or a stop string */
  ZEN_FINISH_LENGTH = 1,     /* max_tokens or the context */
  ZEN_FINISH_TOOL_CALLS = 2, /* it ended with tool calls */
  ZEN_FINISH_CANCELLED = 3,  /* cancelled (the client left, the server stopping) */
  ZEN_FINISH_ERROR = 4       /* failed; error says why */
} zen_finish_reason;

/* A token's log-probability; piece holds its bytes (maybe not valid UTF-8 alone). -INFINITY
 * for a token the sampler ruled out. */
typedef struct zen_token_logprob {
  int32_t token;
  float logprob;
  zen_str piece;
} zen_token_logprob;

typedef struct zen_logprob_entry {
  zen_token_logprob chosen;
  const zen_token_logprob* top; /* the most likely alternatives, best first */
  uint32_t n_top;
} zen_logprob_entry;

/* A piece of a tool call being generated: its first piece has id and name, later ones add
 * to its arguments. index counts the choice's calls from 0. */
typedef struct zen_tool_call_delta {
  uint32_t index;
  zen_str id;
  zen_str name;
  zen_str arguments;
} zen_tool_call_delta;

typedef struct zen_generate_event {
  zen_hdr h;
  uint32_t kind;   /* zen_generate_event_kind */
  uint32_t choice; /* delta, finish */
  /* start */
  const char* model; /* the served model's id */
  int64_t created;   /* Unix seconds */
  /* delta */
  zen_str content;
  zen_str reasoning;
  const zen_tool_call_delta* tool_calls;
  uint32_t n_tool_calls;
  const zen_logprob_entry* logprobs; /* one per token this delta covers */
  uint32_t n_logprobs;
  /* finish */
  uint32_t finish_reason; /* zen_finish_reason */
  /* done (usage, every choice together) */
  uint64_t prompt_tokens, completion_tokens, cached_tokens;
  /* error, and finish with ZEN_FINISH_ERROR */
  const zen_task_error* error;
} zen_generate_event;

/* Called from a host thread for each event of a request, in order; `last` is 1 for the final
 * one (done, or error). Must not block. */
typedef void (*zen_generate_cb)(void* user, const zen_generate_event* event, int last);

/* ---- tokenize ------------------------------------------------------------------------------ */
/* Text to token ids (text set), or token ids to text (tokens set, text {NULL, 0}). */
typedef struct zen_tokenize_request {
  zen_hdr h;
  const char* model;
  zen_str text;
  uint32_t add_special;   /* tokenize: add the model's BOS/EOS as it does for prompts */
  uint32_t parse_special; /* tokenize: "<|im_start|>" in the text is the special token */
  uint32_t with_pieces;   /* tokenize: also each token's bytes */
  const int32_t* tokens;
  uint32_t n_tokens;
} zen_tokenize_request;

typedef struct zen_tokenize_result {
  zen_hdr h;
  const int32_t* tokens; /* tokenize */
  uint32_t n_tokens;
  const zen_str* pieces; /* tokenize with_pieces: n_tokens of them */
  zen_str text;          /* detokenize (special tokens shown) */
} zen_tokenize_result;

typedef void (*zen_tokenize_cb)(void* user, const zen_tokenize_result* result,
                                const zen_task_error* error);

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
  uint32_t normalize; /* 1: every vector scaled to L2 norm 1; 0: as pooled; 2 (ABI 1.8): as the
                         model's file says ({arch}.embedding.normalize, default 1) */
  /* ---- appended in 1.8 ---- */
  uint32_t dimensions; /* 0: the model's width; else a Matryoshka width the model was trained to
                          be truncated to (the vector is cut, then normalized) */
  zen_str prompt_name; /* empty: the model's default prompt; else one of its prompts ("query",
                          "document"): its text is put before each text input */
  uint32_t truncate;   /* 1: keep the head of an input longer than the model takes; 0: refuse */
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

/* ---- rerank, image, speech (1.5): the requests and results the later model kinds answer;
 * a model serves them when task_kinds says so, else submit refuses it through the callback. */
typedef struct zen_rerank_request {
  zen_hdr h;
  const char* model;
  zen_str query;
  const zen_str* documents;
  uint32_t n_documents;
  /* ---- appended in 1.8 ---- */
  uint32_t truncate; /* 1: cut a document that does not fit with the query; 0: refuse */
} zen_rerank_request;

typedef struct zen_rerank_result {
  zen_hdr h;
  /* one per document, in the request's order: the relevance in [0, 1] (a cross-encoder's
   * logistic, a yes/no reranker's P(yes)) */
  const float* scores;
  uint32_t n_scores;
  uint64_t prompt_tokens;
} zen_rerank_result;

typedef void (*zen_rerank_cb)(void* user, const zen_rerank_result* result,
                              const zen_task_error* error);

typedef struct zen_image_request {
  zen_hdr h;
  const char* model;
  zen_str prompt;
  zen_str negative_prompt; /* optional */
  uint32_t width, height;  /* pixels; 0: the model's default */
  uint32_t steps;          /* 0: the model's default */
  float guidance;          /* 0: the model's default */
  uint32_t has_seed;
  uint64_t seed;
} zen_image_request;

/* Progress (image NULL: step of steps done) or the result (image set, the last call). */
typedef struct zen_image_event {
  zen_hdr h;
  uint32_t step, steps;
  const uint8_t* rgb; /* width * height * 3 bytes, row-major, top row first */
  uint32_t width, height;
} zen_image_event;

typedef void (*zen_image_cb)(void* user, const zen_image_event* event, const zen_task_error* error,
                             int last);

typedef struct zen_speech_request {
  zen_hdr h;
  const char* model;
  zen_str text;
  zen_str voice; /* optional, model-specific */
  float speed;   /* 1: as the model speaks; 0 counts as 1 */
  uint32_t has_seed;
  uint64_t seed;
} zen_speech_request;

/* One chunk of audio as it is produced; the last has last = 1 (and may be empty). */
typedef struct zen_speech_chunk {
  zen_hdr h;
  const float* samples; /* mono PCM in [-1, 1] */
  uint64_t n_samples;
  uint32_t sample_rate;
} zen_speech_chunk;

typedef void (*zen_speech_cb)(void* user, const zen_speech_chunk* chunk,
                              const zen_task_error* error, int last);

#ifdef __cplusplus
}
#endif

#endif /* ZEN_TASK_H */
