// One tools/call in flight: submits the typed engine task, gathers its events into the tool
// result (tokenize, embed, rerank: their one result), sends progress notifications
// while a generation runs (when the caller asked for them with a progressToken), and can be
// abandoned (notifications/cancelled, a client that went away), which cancels the engine
// request and suppresses the answer.
#pragma once

#include <zen/task.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "channel.h"
#include "engine_api.h"
#include "inflight.h"
#include "tools.h"

namespace zen::mcp_server {

using EngineApi = zen::http::EngineApi;

class ToolCall : public std::enable_shared_from_this<ToolCall> {
 public:
  struct Options {
    Json rpc_id;                    // of the tools/call request
    Json progress_token = nullptr;  // params._meta.progressToken, null when not asked
    bool modern = false;            // 2026-07-28 results carry "resultType"
  };

  ToolCall(EngineApi api, std::shared_ptr<frontend::Inflight> pending,
           std::shared_ptr<Channel> channel, Options options);

  // Submits; the answer goes to the channel (from the host's thread, a refusal included).
  void start(const EngineTask& task);
  // Abandons the call: the engine request is cancelled and no answer is sent.
  void cancel();

 private:
  frontend::Submitted submit(const EngineTask& task);
  void on_event(const task::GenerateEvent& ev, bool last);
  void on_delta(const task::GenerateEvent& ev);
  // A one-answer task's tool result, or (nullopt) its error.
  void on_answer(std::optional<Json> result, const zen_task_error* error);
  void finish(const task::GenerateEvent& done);
  void fail(const std::string& message);
  void answer(Json result);  // once, unless cancelled

  EngineApi api_;
  std::shared_ptr<frontend::Inflight> pending_;
  std::shared_ptr<Channel> channel_;
  Options options_;

  std::mutex mutex_;  // engine thread vs cancel() from a transport thread
  std::optional<uint64_t> engine_id_;
  bool cancelled_ = false, answered_ = false;

  // Touched by the engine thread only (events of one request arrive in order).
  std::string content_, finish_reason_ = "stop", error_;
  uint64_t deltas_ = 0;
  std::chrono::steady_clock::time_point last_progress_{};
};

}  // namespace zen::mcp_server
