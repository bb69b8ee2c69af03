// Engine requests in flight, as every frontend submits them. Engine events arrive on the
// engine's thread, possibly after the connection that asked is gone and while the server
// stops: Inflight counts submitted requests until their last event and lets events be posted
// to the I/O threads only while those exist, so stop() can wait for the engine to let go of
// every callback and then tear the I/O down safely.
#pragma once

#include <zen/task.hpp>

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>

#include "engine_api.h"

namespace zen::frontend {

class Inflight {
 public:
  void add();
  void release();
  // Waits until no request is in flight or the timeout passes; true when none is.
  bool wait_idle(std::chrono::milliseconds timeout);
  // Runs f on ex unless the I/O side has closed (then f is dropped). Never blocks on I/O.
  void post(const boost::asio::any_io_executor& ex, std::function<void()> f);
  void close();  // from here on post() drops everything

 private:
  std::mutex mutex_;
  std::condition_variable idle_;
  uint64_t count_ = 0;
  bool open_ = true;
};

struct Submitted {
  // False: the host predates this task kind; nothing was submitted and the handler is never
  // called (the caller answers that itself).
  bool supported = true;
  // Not ZEN_OK: refused at once; the handler has the error (the host reports refusals
  // through the callback too).
  zen_status status = ZEN_OK;
  uint64_t id = 0;  // the engine's id, for cancel(), when status is ZEN_OK
};

// Each submits a typed task (zen/task.h) with its answer going to the handler on the host's
// thread (refusals included), counted in `inflight` until the last callback has returned.
// Handlers must not block.

// Every event of a generation, in order, copied out of the host's struct; `last` on the final
// one (done, or error).
using GenerateHandler = std::function<void(task::GenerateEvent event, bool last)>;
Submitted submit_generate_counted(const http::EngineApi& api, const task::GenerateRequest& request,
                                  std::shared_ptr<Inflight> inflight, GenerateHandler on_event);

// The result or the error (the other NULL), once; valid during the call only.
using TokenizeHandler = std::function<void(const zen_tokenize_result*, const zen_task_error*)>;
Submitted submit_tokenize_counted(const http::EngineApi& api, const zen_tokenize_request& request,
                                  std::shared_ptr<Inflight> inflight, TokenizeHandler on_answer);

using EmbedHandler = std::function<void(const zen_embed_result*, const zen_task_error*)>;
Submitted submit_embed_counted(const http::EngineApi& api, const zen_embed_request& request,
                               std::shared_ptr<Inflight> inflight, EmbedHandler on_answer);

using RerankHandler = std::function<void(const zen_rerank_result*, const zen_task_error*)>;
Submitted submit_rerank_counted(const http::EngineApi& api, const zen_rerank_request& request,
                                std::shared_ptr<Inflight> inflight, RerankHandler on_answer);

}  // namespace zen::frontend
