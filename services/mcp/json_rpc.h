// JSON-RPC 2.0 on the client side of MCP: the messages themselves are zen/jsonrpc.hpp's
// (shared with the mcp frontend); here, the errors a call can end with, reading a response,
// and the table of calls waiting for their responses (the stdio transport's reader thread
// completes them; a server that exits fails them all).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include <zen/jsonrpc.hpp>

namespace zen::mcp {

using Clock = std::chrono::steady_clock;

// A call that did not produce a result: the server is unreachable, exited, or broke the
// protocol. The message is the one-line reason the tool hub reports.
struct CallError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The server answered with a JSON-RPC error object.
struct RpcError : CallError {
  int code;
  RpcError(int code, const std::string& message) : CallError(message), code(code) {}
};

// The server broke the rules in a way that leaves the session unusable (JSON nested too
// deeply, an event or line beyond the size limits, a stdin it stopped reading): it is cut off
// and reported failed with this reason.
struct ProtocolViolation : CallError {
  using CallError::CallError;
};

// The server no longer knows our session (streamable HTTP: 404 to a request carrying
// Mcp-Session-Id, e.g. after the server restarted). The request was not processed.
struct SessionExpired : CallError {
  using CallError::CallError;
};

// The caller stopped waiting: its deadline passed or its cancel flag turned true.
struct CallAbandoned : CallError {
  enum class Reason { timeout, cancelled };
  Reason reason;
  explicit CallAbandoned(Reason reason)
      : CallError(reason == Reason::timeout ? "timed out" : "cancelled"), reason(reason) {}
};

// How long a call may wait, and the optional flag that abandons it early.
struct CallControl {
  Clock::time_point deadline = Clock::time_point::max();
  const std::atomic<bool>* cancelled = nullptr;

  static CallControl within(std::chrono::milliseconds timeout,
                            const std::atomic<bool>* cancelled = nullptr) {
    return {Clock::now() + timeout, cancelled};
  }
  // Why waiting must stop now, if it must.
  std::optional<CallAbandoned::Reason> expired() const;
};

// Deeper nesting than any tool schema needs. Checked on the text before parsing: walking or
// dumping deeper JSON (recursive in nlohmann::json) could exhaust a thread's stack.
inline constexpr int kMaxPeerJsonDepth = 128;

// One message (or batch) a server sent, parsed; a discarded value (is_discarded()) when it is
// not JSON. Throws ProtocolViolation naming `server` when it nests deeper than
// kMaxPeerJsonDepth.
nlohmann::json parse_peer_json(std::string_view text, const std::string& server);

// The "result" of a response; throws RpcError("<message> (JSON-RPC error <code>)") for an
// error response and CallError for a malformed one.
nlohmann::json result_of(const nlohmann::json& response);

// Request ids, unique per session.
class RequestIds {
 public:
  int64_t next() { return next_.fetch_add(1); }

 private:
  std::atomic<int64_t> next_{1};
};

// Calls waiting for their responses, by request id.
class PendingCalls {
 public:
  // Registers `id` before its request is written, so a fast answer is not lost.
  void add(int64_t id);
  // Delivers a response; false when nobody waits for that id (an answer after a timeout).
  bool complete(int64_t id, nlohmann::json response);
  // Fails every waiting call, and every later one, with `reason` (the server is gone).
  void fail_all(const std::string& reason);
  // Waits for the response to `id` and removes the entry. Throws CallError(reason) after
  // fail_all, CallAbandoned when `control` expires.
  nlohmann::json wait(int64_t id, const CallControl& control);
  void forget(int64_t id);

 private:
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::map<int64_t, std::optional<nlohmann::json>> waiting_;
  std::optional<std::string> failure_;
};

}  // namespace zen::mcp
