// The transport-agnostic MCP server: one instance per MCP session (a stdio connection, an
// HTTP Mcp-Session-Id, or the shared stateless endpoint of 2026-07-28 requests). Handles the
// lifecycle (initialize/notifications/initialized for 2025-xx revisions, server/discover and
// per-request versions for 2026-07-28), ping, tools/list, tools/call and
// notifications/cancelled; every tool calls the engine API.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "channel.h"
#include "tool_call.h"
#include "tools.h"

namespace zen::mcp_server {

inline constexpr const char* kServerName = "zen-engine";
inline constexpr const char* kServerVersion = "0.1.0";
inline constexpr const char* kModernVersion = "2026-07-28";

// Revisions served, newest first: 2026-07-28 (stateless, per-request _meta) and the
// initialize-handshake revisions.
const std::vector<std::string>& supported_versions();
bool is_handshake_version(const std::string& v);

class Protocol {
 public:
  Protocol(EngineApi api, std::shared_ptr<frontend::Inflight> pending);
  ~Protocol();  // cancel_all()

  // One message parse_message accepted. A request gets exactly one answer on `channel` (now,
  // or later from an engine thread for a generation); notifications and responses get none.
  // Returns the generation it started, if any, so the transport can abandon it when its
  // client goes away.
  std::shared_ptr<ToolCall> handle(const Json& message, const std::shared_ptr<Channel>& channel);

  void cancel_all();  // abandons every generation in flight (session end, shutdown)

 private:
  struct Request {
    Json id;
    std::string method;
    Json params;
    bool modern = false;  // carries a 2026-07-28 _meta protocol version
  };

  Json dispatch(const Request& r, const std::shared_ptr<Channel>& channel,
                std::shared_ptr<ToolCall>& started);
  Json initialize(const Request& r);
  Json discover(const Request& r) const;
  Json call_tool(const Request& r, const std::shared_ptr<Channel>& channel,
                 std::shared_ptr<ToolCall>& started);
  // The zen_task_kind bits the served models answer, together (which tools to list).
  uint32_t served_kinds() const;
  Json list_models() const;
  void on_notification(const std::string& method, const Json& params);

  EngineApi api_;
  std::shared_ptr<frontend::Inflight> pending_;
  std::mutex mutex_;
  bool initialized_ = false;
  std::string version_;                                   // negotiated by initialize
  std::map<std::string, std::weak_ptr<ToolCall>> calls_;  // by dumped request id
};

}  // namespace zen::mcp_server
