/* Frontend plugins (http, mcp) and the engine API table they talk to. Requests and their
 * answers cross as the typed structs of zen/task.h (1.5: generation, tokenizing, embeddings;
 * rerank, image and speech numbered for the model kinds that answer them); the JSON of the
 * HTTP and MCP protocols is the frontends' alone. */
#ifndef ZEN_FRONTEND_H
#define ZEN_FRONTEND_H

#include <zen/abi.h>
#include <zen/task.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zen_engine zen_engine;

/* Before 1.5, generation events crossed as JSON through this callback (submit, below). */
typedef void (*zen_event_cb)(void* user, const char* event_json, int last);

typedef struct zen_engine_api {
  zen_hdr h;
  /* Strings returned to the caller are host-allocated; release them with free_string. */
  char* (*list_models)(zen_engine* e);
  /* Retired in 1.5 (the JSON requests of 1.0-1.4): submit answers with one error event,
   * tokenize, detokenize and embed with an error object; use the typed members below. */
  zen_status (*submit)(zen_engine* e, const char* request_json, zen_event_cb cb, void* user,
                       uint64_t* out_id);
  /* Ends a request of any kind at any stage (its events still end with the last one); unknown
   * or finished ids are ignored. */
  zen_status (*cancel)(zen_engine* e, uint64_t id);
  char* (*tokenize)(zen_engine* e, const char* request_json);
  char* (*detokenize)(zen_engine* e, const char* request_json);
  char* (*embed)(zen_engine* e, const char* request_json);
  char* (*metrics)(zen_engine* e);
  void (*free_string)(char* s);
  /* ABI 1.2: {"ready": bool, "models": [{"id", "state": "loading"|"ready"|"failed",
   * "error"?}]}, for readiness probes. Check ZEN_HAS_MEMBER before calling. */
  char* (*status)(zen_engine* e);
  /* ---- appended in 1.4: typed tasks (zen/task.h) ---- */
  /* The zen_task_kind bits the served model `model` answers; 0 when there is no such model. */
  uint32_t (*task_kinds)(zen_engine* e, const char* model);
  /* Returns at once, having copied what it needs from *request; the vectors (or the error)
   * come to cb from a host thread. A request refused at once (no such model, a bad input)
   * still comes back through cb, with a status other than ZEN_OK returned too. */
  zen_status (*submit_embed)(zen_engine* e, const zen_embed_request* request, zen_embed_cb cb,
                             void* user, uint64_t* out_id);
  /* ---- appended in 1.5: every task typed; each returns at once like submit_embed (a refusal
   * comes through cb too), and the work happens on the host's threads, never the caller's ---- */
  /* Events start, delta..., finish per choice, done; or one error event. */
  zen_status (*submit_generate)(zen_engine* e, const zen_generate_request* request,
                                zen_generate_cb cb, void* user, uint64_t* out_id);
  zen_status (*submit_tokenize)(zen_engine* e, const zen_tokenize_request* request,
                                zen_tokenize_cb cb, void* user, uint64_t* out_id);
  zen_status (*submit_rerank)(zen_engine* e, const zen_rerank_request* request, zen_rerank_cb cb,
                              void* user, uint64_t* out_id);
  zen_status (*submit_image)(zen_engine* e, const zen_image_request* request, zen_image_cb cb,
                             void* user, uint64_t* out_id);
  zen_status (*submit_speech)(zen_engine* e, const zen_speech_request* request, zen_speech_cb cb,
                              void* user, uint64_t* out_id);
} zen_engine_api;
#define ZEN_ENGINE_API_NAME "engine"

typedef struct zen_frontend zen_frontend; /* plugin-owned */

typedef struct zen_frontend_v1 {
  zen_hdr h;
  /* Start serving (own I/O threads); config_json is the frontend's section of the config. */
  zen_status (*start)(const zen_engine_api* api, zen_engine* engine, const char* config_json,
                      zen_frontend** out, char* err, size_t err_len);
  /* Stop cleanly: close listeners, cancel in-flight requests, join threads. */
  void (*stop)(zen_frontend* fe);
  /* ---- appended in 1.2 (optional) ---- */
  /* Where clients reach it once started ("http://127.0.0.1:3690": the bound port, also for a
   * configured port 0), written to out as a NUL-terminated string. */
  zen_status (*address)(zen_frontend* fe, char* out, size_t out_len);
} zen_frontend_v1;

#ifdef __cplusplus
}
#endif

#endif /* ZEN_FRONTEND_H */
