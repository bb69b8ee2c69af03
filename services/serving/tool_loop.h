// The MCP tool loop of one chat request (docs/MCP-CLIENT.md, "The tool loop"): the request is
// generated in rounds, each a separate engine request under the same API id. Between the
// frontend and the engine it
//   - hides the calls of tools the ToolHub owns (their deltas never reach the client; client
//     tool calls pass through, `index` renumbered to count client calls only),
//   - after a round that ended with MCP calls only, runs them in parallel on worker threads
//     (never on the engine thread, which delivers the events, nor on a frontend thread),
//     appends the assistant message and one tool message per call, and submits the next round,
//   - ends with the last round's finish and a done event whose usage sums every round.
// Exactly one event with last = true reaches the frontend, whatever happens (cancel, a failed
// round, the service going away).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "request_sink.h"

namespace zen::mcp {
class ToolHub;
struct ToolCallResult;
}  // namespace zen::mcp

namespace zen::serving {

class ApiError;
class WorkerThreads;

// Adds the hub's tools that `model` (the served model id the request resolved to) is offered
// to a chat request (after the request's own). False, with the request unchanged, when the
// loop does not apply: not a chat request, or no hub tool for this model. ApiError 400 for
// n > 1 or a request tool named like an MCP tool.
bool add_hub_tools(GenerationRequest& request, const mcp::ToolHub& hub, const std::string& model);

class ToolLoop : public std::enable_shared_from_this<ToolLoop> {
 public:
  // Submits one round as an engine request under the loop's id, its events to `emit`.
  // Throws ApiError when the round cannot start.
  using SubmitRound = std::function<void(const GenerationRequest& round, EmitFn emit)>;

  struct Services {
    std::shared_ptr<mcp::ToolHub> hub;
    std::string model;  // the served model id: only the hub tools it is offered are run
    WorkerThreads* workers = nullptr;  // outlives the loop's tasks (joined before it goes)
    LogFn log;
    SubmitRound submit;
    std::function<void()> ended;  // after the last event
  };

  // `request`: the chat request with the hub's tools added (its tag names it in log lines).
  ToolLoop(GenerationRequest request, EmitFn emit, Services services);

  // Submits the first round on the caller's thread; throws its ApiError (no event sent then).
  void start();
  // From any thread: running tool calls are abandoned (the hub polls the flag) and no new
  // round starts; the request finishes "cancelled". The current engine round is cancelled
  // by EngineService::cancel itself.
  void cancel() { cancelled_ = true; }

 private:
  struct Call {
    bool mcp = false;
    uint32_t client_index = 0;
    std::string id, name, arguments;
    std::string result;  // the tool message's content once it ran
  };

  EmitFn round_emit();
  void on_event(const task::GenerateEvent& event, bool last);  // engine thread
  // The client's calls of this delta, renumbered; the hub's are kept for the round's end.
  std::vector<task::ToolCallDelta> visible_calls(const std::vector<task::ToolCallDelta>& calls);
  void on_round_done(const task::GenerateEvent& done);
  mcp::ToolCallResult call_tool(const Call& call);
  void run_call(size_t index);  // worker thread
  void next_round();            // worker thread, after the round's last call
  GenerationRequest round_request() const;
  task::GenerateEvent done_event() const;  // usage of every round
  void emit(const task::GenerateEvent& event, bool last);
  void end_cancelled();
  void end_failed(const ApiError& error);
  void log(const std::string& line) const;

  GenerationRequest request_;
  EmitFn emit_;
  Services services_;
  std::atomic<bool> cancelled_{false};
  bool ended_ = false;

  // Whole loop (touched by one thread at a time: the engine thread during a round, then the
  // worker threads of its calls, handed over through thread start and the engine's queue).
  std::vector<task::Message> messages_;
  int executed_rounds_ = 0;
  uint64_t prompt_tokens_ = 0, completion_tokens_ = 0, cached_tokens_ = 0;
  bool started_ = false;

  // The current round.
  std::map<uint32_t, Call> calls_;  // by the round's own call index
  std::vector<Call*> mcp_calls_;
  uint32_t client_calls_ = 0;
  std::string content_;     // the assistant text of this round (for its message)
  bool run_tools_ = false;  // the round ended with MCP calls only: run them, go on
  std::atomic<size_t> pending_calls_{0};
};

}  // namespace zen::serving
