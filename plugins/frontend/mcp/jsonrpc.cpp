#include "jsonrpc.h"

#include <zen/json_depth.hpp>

namespace zen::mcp_server {

Json parse_message(std::string_view text) {
  if (text::json_depth(text) > text::kMaxJsonDepth)
    throw RpcError(jsonrpc::kInvalidRequest, "the message nests deeper than " +
                                                 std::to_string(text::kMaxJsonDepth) + " levels");
  Json m = Json::parse(text, nullptr, false);
  if (m.is_discarded())
    throw RpcError(jsonrpc::kParseError, "Parse error: the message is not JSON");
  if (m.is_array())
    throw RpcError(jsonrpc::kInvalidRequest,
                   "JSON-RPC batches are not supported: send one message");
  if (!m.is_object())
    throw RpcError(jsonrpc::kInvalidRequest, "a JSON-RPC message must be an object");
  auto invalid = [&](const std::string& why) {
    RpcError e(jsonrpc::kInvalidRequest, "Invalid request: " + why);
    e.id = id_of(m);
    return e;
  };
  if (m.value("jsonrpc", Json()) != "2.0") throw invalid("'jsonrpc' must be \"2.0\"");
  const bool has_id = m.contains("id");
  if (has_id && !m["id"].is_string() && !m["id"].is_number_integer())
    throw invalid("'id' must be a string or an integer");
  if (m.contains("method")) {
    if (!m["method"].is_string()) throw invalid("'method' must be a string");
    if (m.contains("params") && !m["params"].is_object())
      throw invalid("'params' must be an object");
    return m;
  }
  if (has_id && (m.contains("result") || m.contains("error"))) return m;
  throw invalid("the message is neither a request, a notification nor a response");
}

Json id_of(const Json& message) {
  if (!message.is_object() || !message.contains("id")) return nullptr;
  const Json& id = message["id"];
  return id.is_string() || id.is_number_integer() ? id : Json(nullptr);
}

Json error_response(const Json& id, const RpcError& e) {
  return jsonrpc::error(id, e.code, e.what(), e.data);
}

}  // namespace zen::mcp_server
