// JSON-RPC 2.0 on the server side of MCP: the messages themselves are zen/jsonrpc.hpp's (shared
// with the host's MCP client); here, MCP's own error codes, the error a method answers with, and
// what a server accepts. Batches (JSON arrays) are refused: MCP removed them in 2025-06-18 and no
// supported client sends them.
#pragma once

#include <zen/jsonrpc.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

namespace zen::mcp_server {

using Json = nlohmann::json;
using jsonrpc::dump;
using jsonrpc::kind_of;

namespace rpc {
// MCP 2026-07-28: a routing header disagrees with the body; the requested version is unknown.
inline constexpr int kHeaderMismatch = -32020;
inline constexpr int kUnsupportedVersion = -32022;
}  // namespace rpc

// An error answered as a JSON-RPC error object.
struct RpcError : std::runtime_error {
  RpcError(int c, const std::string& message, Json d = nullptr)
      : std::runtime_error(message), code(c), data(std::move(d)) {}
  int code;
  Json data;
  Json id = nullptr;  // of the offending message, when it had a usable one
};

// Parses one message: JSON text nested at most text::kMaxJsonDepth deep, a single object with
// "jsonrpc": "2.0" that is a request, a notification or a response (jsonrpc::kind_of then
// says which). Throws RpcError (kParseError, or kInvalidRequest for a batch or a shape that is
// no JSON-RPC message; its `id` is the message's when it had a usable one).
Json parse_message(std::string_view text);

// The id to echo in an error answer to a message that may be malformed (null if unusable).
Json id_of(const Json& message);

// The error answer for e.
Json error_response(const Json& id, const RpcError& e);

}  // namespace zen::mcp_server
