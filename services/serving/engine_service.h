// The engine API (sdk/include/zen/frontend.h, docs/SERVING.md) in C++: what the frontends
// call, through the C table in c_api.cpp. Requests are validated, rendered and tokenized on the
// service's preparation threads, never on the caller's (a frontend's I/O thread); tokens come
// back as events on the model's engine thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api_error.h"
#include "model_registry.h"
#include "request_sink.h"
#include "task_pool.h"
#include "worker_threads.h"

namespace zen::mcp {
class ToolHub;
}

namespace zen::serving {

class ToolLoop;

// An embedding request (the engine API's zen_embed_request, copied).
struct EmbedRequest {
  struct Input {
    bool is_text = false;
    std::string text;
    std::vector<int32_t> tokens;
  };
  std::string model;
  std::vector<Input> inputs;
  bool normalize = false;
};
struct Embeddings {
  std::vector<std::vector<float>> vectors;  // one per input, in order
  uint64_t prompt_tokens = 0;
};
// Gets the vectors or the error (the other null), once, from a preparation thread.
using EmbedDone = std::function<void(const Embeddings*, const ApiError*)>;

class EngineService {
 public:
  EngineService(ModelRegistry& models, LogFn log);
  // Cancels the tool loops, stops the models' engines and joins the tool-call threads: every
  // request has had its last event, and no sink may call back into a dead service.
  ~EngineService();
  EngineService(const EngineService&) = delete;
  EngineService& operator=(const EngineService&) = delete;

  nlohmann::json status() const;
  nlohmann::json list_models() const;
  // Queues a request and returns its id at once; events go to `emit` (the last one with
  // last = true), an invalid request as one error event {type, error, status} from a
  // preparation thread. Throws ApiError (no event sent) only when the service is stopping.
  // A generation ("endpoint" chat or completion) gets start/delta/finish/done; "tokenize" and
  // "detokenize" get one event {type: "result", result} from the preparation thread: their
  // text can be megabytes too, so they are worked on there like a prompt.
  uint64_t submit(std::string_view request_json, EmitFn emit);
  // Ends a request at any stage; unknown or finished ids are ignored.
  void cancel(uint64_t id);
  // Queues an embedding request: texts are tokenized and the model runs on a preparation
  // thread, as prompts are. Throws ApiError (and `done` is not called) only when stopping.
  void embed(EmbedRequest request, EmbedDone done);
  // The zen_task_kind bits model `id` serves; 0 when there is no such model ready.
  uint32_t task_kinds(const std::string& id) const;
  // The same answers on the caller's thread (the engine API table's synchronous members,
  // kept for frontends written before submit took these endpoints).
  Json tokenize(std::string_view request_json) const;
  Json detokenize(std::string_view request_json) const;
  std::string metrics() const;
  // MCP tools for chat requests (docs/MCP-CLIENT.md, "The tool loop"). Called once, before
  // the frontends start.
  void set_tool_hub(std::shared_ptr<mcp::ToolHub> hub);

 private:
  struct InFlight {
    std::weak_ptr<ServedModel> model;  // the current round's
    uint64_t engine_id = 0;            // 0 until Engine::submit returned
    bool cancel_requested = false;
    std::shared_ptr<ToolLoop> loop;  // set for a tool loop: the entry lives across its rounds
  };
  // On a preparation thread: parse, template, tokenize and submit request `id` (or answer a
  // tokenize/detokenize request).
  void prepare(uint64_t id, const std::string& request_json, EmitFn emit,
               std::chrono::steady_clock::time_point received);
  // tokenize/detokenize of a parsed body (without "endpoint").
  Json tokenize_body(const Json& body) const;
  Json detokenize_body(const Json& body) const;
  // One engine request for `r` under `id`. own_entry: a request of its own, whose entry goes
  // with its last event; else a round of tool loop `id` (the loop ends the entry).
  void submit_round(const GenerationRequest& r, std::shared_ptr<ServedModel> model,
                    RequestInfo info, uint64_t id, bool own_entry, EmitFn emit);
  void submit_tool_loop(uint64_t id, Json body, EmitFn emit,
                        std::chrono::steady_clock::time_point received);
  void release(uint64_t id);
  // The served model id a request body names (or the only model), for the hub's "models".
  std::string hub_model(const Json& body) const;

  ModelRegistry& models_;
  LogFn log_;
  std::shared_ptr<mcp::ToolHub> hub_;
  std::mutex mu_;
  std::unordered_map<uint64_t, InFlight> in_flight_;
  uint64_t next_id_ = 1;
  WorkerThreads tool_threads_;  // the tool loops' MCP calls
  TaskPool prep_{2};            // prepare(): JSON, chat template, tokenizer (also tokenize)
};

// The request body as JSON; ApiError 400 when it is not JSON or nests deeper than 64 levels
// (deep nesting is refused before parsing, so hostile input cannot exhaust the stack).
Json parse_body(std::string_view text);

}  // namespace zen::serving
