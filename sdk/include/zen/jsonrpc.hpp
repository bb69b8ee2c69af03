// JSON-RPC 2.0 messages as MCP uses them, header-only, for whoever speaks it on either side:
// the mcp frontend (a server) and the host's MCP client. Builds messages, tells their kinds
// apart and serialises them; what each side does with a malformed message (an error answer,
// a broken session) stays its own. Needs nlohmann::json (the frontends' JSON library), which
// the rest of the SDK does not.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace zen::jsonrpc {

using Json = nlohmann::json;

// The standard error codes.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;

enum class Kind { request, notification, response, invalid };

// A request has a string method and an id (a string or a number), a notification a method
// and no usable id, a response an id and a result or an error; anything else is invalid.
inline Kind kind_of(const Json& message) {
  if (!message.is_object()) return Kind::invalid;
  const auto id = message.find("id");
  const bool has_id = id != message.end() && (id->is_number() || id->is_string());
  if (const auto method = message.find("method"); method != message.end() && method->is_string())
    return has_id ? Kind::request : Kind::notification;
  if (has_id && (message.contains("result") || message.contains("error"))) return Kind::response;
  return Kind::invalid;
}

// Null params are left out.
inline Json request(const Json& id, std::string_view method, Json params = nullptr) {
  Json m = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
  if (!params.is_null()) m["params"] = std::move(params);
  return m;
}
inline Json notification(std::string_view method, Json params = nullptr) {
  Json m = {{"jsonrpc", "2.0"}, {"method", method}};
  if (!params.is_null()) m["params"] = std::move(params);
  return m;
}
inline Json result(const Json& id, Json value) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(value)}};
}
// Null data is left out.
inline Json error(const Json& id, int code, std::string_view message, Json data = nullptr) {
  Json e = {{"code", code}, {"message", message}};
  if (!data.is_null()) e["data"] = std::move(data);
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(e)}};
}

// JSON text that never throws on invalid UTF-8 (replaced by U+FFFD).
inline std::string dump(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace zen::jsonrpc
