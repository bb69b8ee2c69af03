// The engine API (sdk/include/zen/frontend.h, docs/SERVING.md) in C++: what the frontends
// call, through the C table in c_api.cpp, with the typed tasks of zen/task.h. Requests are
// checked, rendered and tokenized on the service's preparation threads, never on the caller's
// (a frontend's I/O thread); tokens come back as events on the model's engine thread.
#pragma once

#include <atomic>
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
#include "embedder.h"
#include "model_registry.h"
#include "request_sink.h"
#include "task_pool.h"
#include "worker_threads.h"

namespace zen::mcp {
class ToolHub;
}

namespace zen::serving {

class ToolLoop;

// Gets the vectors (scores) or the error (the other null), once, from an encoder thread.
using EmbedDone = std::function<void(const Embeddings*, const ApiError*)>;
using RerankDone = std::function<void(const Reranked*, const ApiError*)>;

// Text to token ids, or (detokenize) token ids to text.
struct TokenizeRequest {
  std::string model;
  bool detokenize = false;
  std::string text;
  bool add_special = true, parse_special = true, with_pieces = false;
  std::vector<int32_t> tokens;
};
struct Tokenized {
  std::vector<int32_t> tokens;
  std::vector<std::string> pieces;  // with_pieces: each token's bytes
  std::string text;                 // detokenize
};
using TokenizeDone = std::function<void(const Tokenized*, const ApiError*)>;

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
  // Queues a generation and returns its id at once; events go to `emit` (start, delta,
  // finish, done; the last one with last = true), a refused request as one error event from
  // a preparation thread. Throws ApiError (no event sent) only when the service is stopping.
  uint64_t submit(task::GenerateRequest request, EmitFn emit);
  // Ends a request at any stage; unknown or finished ids are ignored.
  void cancel(uint64_t id);
  // Queues an embedding request: texts are tokenized and the model runs on a preparation
  // thread, as prompts are. Throws ApiError (and `done` is not called) only when stopping.
  void embed(EmbedRequest request, EmbedDone done);
  // Queues a rerank request: one relevance score per document.
  void rerank(RerankRequest request, RerankDone done);
  // Queues a tokenize or detokenize request the same way: text can be megabytes, so it is
  // worked on there like a prompt.
  void tokenize(TokenizeRequest request, TokenizeDone done);
  // Queues a pipeline request (image, speech) on the pipeline thread and returns its id at
  // once: `work` runs it on the served model, with the flag cancel(id) sets; an ApiError it
  // throws (or the model lookup's) goes to `fail`. Throws ApiError only when stopping.
  using PipelineWork = std::function<void(ServedModel& model, const std::atomic<bool>& cancel)>;
  uint64_t run_pipeline(const std::string& model, PipelineWork work,
                        std::function<void(const ApiError&)> fail);
  // The zen_task_kind bits model `id` serves; 0 when there is no such model ready.
  uint32_t task_kinds(const std::string& id) const;
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
    std::shared_ptr<std::atomic<bool>> stop;  // set for a pipeline request: cancel() sets it
  };
  // On a preparation thread: check, template, tokenize and submit request `id`.
  void prepare(uint64_t id, task::GenerateRequest typed, EmitFn emit,
               std::chrono::steady_clock::time_point received);
  Tokenized tokenize_now(const TokenizeRequest& r) const;
  // Runs `work` on a thread of `pool` and hands its result, or the error it threw, to `done`
  // once. Throws ApiError (and `done` is not called) when the service is stopping.
  template <class Result, class Work>
  void answer_on(TaskPool& pool, Work work,
                 std::function<void(const Result*, const ApiError*)> done) {
    auto task = [work = std::move(work), done = std::move(done)] {
      try {
        const Result out = work();
        done(&out, nullptr);
      } catch (const ApiError& e) {
        done(nullptr, &e);
      } catch (const std::exception& e) {
        const ApiError internal = ApiError::internal(e.what());
        done(nullptr, &internal);
      }
    };
    if (!pool.post(std::move(task)))
      throw ApiError::unavailable("the server is shutting down", "shutting_down");
  }
  // One engine request for `r` under `id`. own_entry: a request of its own, whose entry goes
  // with its last event; else a round of tool loop `id` (the loop ends the entry).
  void submit_round(const GenerationRequest& r, std::shared_ptr<ServedModel> model,
                    RequestInfo info, uint64_t id, bool own_entry, EmitFn emit);
  void submit_tool_loop(uint64_t id, GenerationRequest r, RequestInfo info, EmitFn emit);
  void release(uint64_t id);

  ModelRegistry& models_;
  LogFn log_;
  std::shared_ptr<mcp::ToolHub> hub_;
  std::mutex mu_;
  std::unordered_map<uint64_t, InFlight> in_flight_;
  uint64_t next_id_ = 1;
  WorkerThreads tool_threads_;  // the tool loops' MCP calls
  TaskPool prep_{2};            // prepare(): chat template, tokenizer (also tokenize, embed)
  TaskPool pipelines_{1};       // image and speech requests, one at a time
  // Embed and rerank requests: most wait while one runs the encoder for all of them
  // (Embedder), so more of them than cores.
  TaskPool encoders_{16};
};

}  // namespace zen::serving
