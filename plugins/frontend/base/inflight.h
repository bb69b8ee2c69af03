// Engine requests in flight, as every frontend submits them. Engine events arrive on the
// engine's thread, possibly after the connection that asked is gone and while the server
// stops: Inflight counts submitted requests until their last event and lets events be posted
// to the I/O threads only while those exist, so stop() can wait for the engine to let go of
// every callback and then tear the I/O down safely.
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

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

// Called on the engine's thread for each event of one request (the JSON text, and whether it
// is the last); must not block.
using EventHandler = std::function<void(std::string event_json, bool last)>;

struct Submitted {
  zen_status status = ZEN_OK;
  uint64_t id = 0;  // the engine's id, when status is ZEN_OK
  // The engine refused without an event: on_event was not and will not be called, and the
  // caller answers the refusal itself.
  bool refused_silently = false;
};

// Submits request_json with its events going to on_event, counted in `inflight` from now until
// the last event has been handled.
Submitted submit_counted(const http::EngineApi& api, const std::string& request_json,
                         std::shared_ptr<Inflight> inflight, EventHandler on_event);

// The typed embed task (zen/task.h) the same way: on_answer gets the result or the error once,
// on the host's thread (refusals included). False when the host has no typed tasks.
using EmbedHandler = std::function<void(const zen_embed_result*, const zen_task_error*)>;
bool submit_embed_counted(const http::EngineApi& api, const zen_embed_request& request,
                          std::shared_ptr<Inflight> inflight, EmbedHandler on_answer);

}  // namespace zen::frontend
