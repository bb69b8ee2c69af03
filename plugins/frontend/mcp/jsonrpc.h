// JSON-RPC 2.0 as MCP uses it: message kinds, the error codes, and response builders. Batches
// (JSON arrays) are refused: MCP removed them in 2025-06-18 and no supported client sends them.
#pragma once

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

namespace zen::mcp_server {

using Json = nlohmann::json;

namespace rpc {
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
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

enum class MessageKind { kRequest, kNotification, kResponse };

// Parses one message: JSON text nested at most text::kMaxJsonDepth deep, a single object with
// "jsonrpc": "2.0". Throws RpcError (kParseError, or kInvalidRequest for a batch or a shape
// that is no JSON-RPC message; its `id` is the message's when it had a usable one).
Json parse_message(std::string_view text);
MessageKind kind_of(const Json& message);  // of a message parse_message accepted

// The id to echo in an error answer to a message that may be malformed (null if unusable).
Json id_of(const Json& message);

Json result_response(const Json& id, Json result);
Json error_response(const Json& id, int code, const std::string& message, Json data = nullptr);
Json error_response(const Json& id, const RpcError& e);
Json notification(const std::string& method, Json params);

// JSON text that never throws on invalid UTF-8 (replaced by U+FFFD).
std::string dump(const Json& j);

}  // namespace zen::mcp_server
