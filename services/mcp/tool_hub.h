// The MCP client side of the engine: the tools of the configured MCP servers (stdio child
// processes and streamable HTTP endpoints), offered to the model in OpenAI "tools" form as
// "<server>__<tool>", and calls to them with a timeout, cancellation and a concurrency cap.
// A stdio server that died is restarted (an HTTP server that forgot the session is
// reconnected) on the next call to it, at most once per 10 s.
// Thread-safe: call() may run on many threads at once. docs/MCP-CLIENT.md.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mcp/call_slots.h"
#include "mcp/config.h"

namespace zen::mcp {

class Session;
struct CallControl;
using LogFn = std::function<void(const std::string& line)>;

struct ToolCallResult {
  std::string text;       // the result's content: text items joined with "\n"; other items
                          // described ("[image/png, 1234 bytes]"); structuredContent as JSON
                          // text when there is no content
  bool is_error = false;  // the tool said isError, or the call failed (text says why)
};

class ToolHub {
 public:
  // Parses the file, starts/connects every server in parallel, initializes, lists tools
  // (following nextCursor). Throws zen::Error only for a bad config file; a server that
  // fails is logged and left out. `log` may be called from several threads (serialized).
  static std::shared_ptr<ToolHub> start(const std::filesystem::path& config, LogFn log);
  static std::shared_ptr<ToolHub> start(Config config, LogFn log);
  ~ToolHub();  // stop()

  // [{"type":"function","function":{"name","description","parameters"}}], exposed names,
  // in config order, for the tools of servers that are up: all of them, or those of the
  // servers whose "models" name `model`.
  nlohmann::json openai_tools() const;
  nlohmann::json openai_tools(std::string_view model) const;
  bool owns(std::string_view exposed_name) const;
  // An exposed tool that `model` is offered (a model calling another one's tool gets none).
  bool owns(std::string_view exposed_name, std::string_view model) const;
  // Blocks up to call_timeout_s (and waits for a concurrency slot first). Never throws for
  // anything the server or transport does: returns is_error with the reason. `cancelled`
  // (optional) is polled: when it turns true the call is abandoned with
  // notifications/cancelled sent and {"cancelled", true}.
  ToolCallResult call(std::string_view exposed_name, const nlohmann::json& arguments,
                      const std::atomic<bool>* cancelled = nullptr);
  int max_rounds() const { return config_.max_rounds; }
  void stop();  // closes sessions (HTTP DELETE of the session), ends child processes

  struct Server;  // one configured server and its session (tool_hub.cpp)

 private:
  ToolHub(Config config, LogFn log);
  void connect(Server& server);
  void publish_tools();
  std::shared_ptr<Session> session_for_call(Server& server, std::string& why_not);
  nlohmann::json call_on_session(Server& server, const std::string& tool,
                                 const nlohmann::json& arguments, const CallControl& control);

  Config config_;
  LogFn log_;
  std::vector<std::unique_ptr<Server>> servers_;
  CallSlots slots_;
  std::atomic<bool> stopping_{false};

  struct Exposed {
    Server* server;
    std::string tool;
  };
  mutable std::mutex tools_mutex_;
  std::map<std::string, Exposed, std::less<>> exposed_;
  struct Offered {
    const Server* server;
    nlohmann::json tool;  // the OpenAI function tool
  };
  std::vector<Offered> offered_;  // config order
};

}  // namespace zen::mcp
