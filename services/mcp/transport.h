// What a session needs from a connection to an MCP server: send a JSON-RPC request and get
// its response, send a notification, end the connection. Implemented by the stdio transport
// (a child process) and the streamable HTTP transport.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "mcp/json_rpc.h"

namespace zen::mcp {

using LogFn = std::function<void(const std::string& line)>;

class Transport {
 public:
  virtual ~Transport() = default;

  // Sends a request (it carries its "id") and returns the response message, result or error.
  // Throws CallError when the server is unreachable or gone, CallAbandoned when `control`
  // expires first.
  virtual nlohmann::json request(const nlohmann::json& message, const CallControl& control) = 0;
  // Sends a notification, waiting at most until `control` expires. Throws CallError.
  virtual void notify(const nlohmann::json& message, const CallControl& control) = 0;
  // The protocol version initialize agreed on (streamable HTTP repeats it in a header).
  virtual void set_protocol_version(const std::string& version) { (void)version; }
  // False once the server is known to be gone (a stdio child that exited).
  virtual bool alive() const = 0;
  // Ends the connection (HTTP: DELETE of the session; stdio: the child is stopped) and fails
  // calls still waiting. Idempotent.
  virtual void close() = 0;
};

}  // namespace zen::mcp
