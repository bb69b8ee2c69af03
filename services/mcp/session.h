// One MCP client session over a transport: the initialize handshake (protocol version
// negotiation, then notifications/initialized), tools/list with paging, tools/call with a
// deadline and notifications/cancelled when the caller stops waiting, and ping.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mcp/json_rpc.h"
#include "mcp/transport.h"

namespace zen::mcp {

// The protocol revision we offer (the newest that uses the initialize handshake) and the
// ones we accept from a server.
inline constexpr const char* kOfferedProtocolVersion = "2025-11-25";
bool is_supported_protocol_version(const std::string& version);

struct ToolInfo {
  std::string name;
  std::string description;
  nlohmann::json input_schema;  // JSON Schema of the arguments, an object
};

class Session {
 public:
  Session(std::string server_name, std::unique_ptr<Transport> transport);
  ~Session();

  // Throws CallError with the reason (unsupported version, JSON-RPC error, transport failure).
  void initialize(const CallControl& control);
  std::vector<ToolInfo> list_tools(const CallControl& control);
  // The tools/call result object ({"content": [...], "isError": ...}). A call abandoned by
  // `control` sends notifications/cancelled to the server, then throws CallAbandoned.
  nlohmann::json call_tool(const std::string& name, const nlohmann::json& arguments,
                           const CallControl& control);
  void ping(const CallControl& control);

  bool alive() const { return transport_->alive(); }
  const std::string& protocol_version() const { return protocol_version_; }
  void close() { transport_->close(); }

 private:
  nlohmann::json call(std::string_view method, nlohmann::json params, const CallControl& control);

  std::string name_;
  std::unique_ptr<Transport> transport_;
  RequestIds ids_;
  std::string protocol_version_;
};

}  // namespace zen::mcp
