#include "protocol.h"

#include <algorithm>

namespace zen::mcp_server {
namespace {

constexpr const char* kVersionMetaKey = "io.modelcontextprotocol/protocolVersion";
constexpr const char* kServerInfoMetaKey = "io.modelcontextprotocol/serverInfo";
constexpr const char* kInstructions =
    "Local language models served by Zen Engine. `list_models` shows them; `chat` answers a "
    "conversation, `complete` continues a raw text, `tokenize` counts tokens.";

Json server_info() { return Json{{"name", kServerName}, {"version", kServerVersion}}; }

Json capabilities() { return Json{{"tools", {{"listChanged", false}}}}; }

// The version a request's _meta names (2026-07-28 envelope), or "" when it names none.
std::string meta_version(const Json& params) {
  if (!params.is_object() || !params.contains("_meta") || !params["_meta"].is_object()) return "";
  const Json& meta = params["_meta"];
  if (!meta.contains(kVersionMetaKey)) return "";
  if (!meta[kVersionMetaKey].is_string())
    throw RpcError(jsonrpc::kInvalidParams,
                   std::string("'_meta.") + kVersionMetaKey + "' must be a string");
  return meta[kVersionMetaKey].get<std::string>();
}

RpcError unsupported_version(const std::string& requested) {
  return RpcError(rpc::kUnsupportedVersion, "Unsupported protocol version",
                  Json{{"supported", Json::array({kModernVersion})}, {"requested", requested}});
}

// A 2026-07-28 result states that it is complete (its schema requires resultType); cacheable
// ones also say how long a client may keep them.
Json modern_result(Json result, bool cacheable) {
  result["resultType"] = "complete";
  if (cacheable) {
    result["ttlMs"] = 0;
    result["cacheScope"] = "private";
  }
  return result;
}

Json tool_result(const std::string& text, Json structured, bool is_error) {
  Json r = {{"content", Json::array({{{"type", "text"}, {"text", text}}})}, {"isError", is_error}};
  if (!structured.is_null()) r["structuredContent"] = std::move(structured);
  return r;
}

// The engine API's error objects ({"error": {"message"...}, "status"}) as tool errors.
bool is_engine_error(const Json& j) { return j.is_object() && j.contains("error"); }

std::string engine_error_text(const Json& j) {
  const Json& e = j["error"];
  return e.is_object() ? e.value("message", dump(e)) : dump(e);
}

}  // namespace

const std::vector<std::string>& supported_versions() {
  static const std::vector<std::string> v = {kModernVersion, "2025-11-25", "2025-06-18",
                                             "2025-03-26"};
  return v;
}

bool is_handshake_version(const std::string& v) {
  return v != kModernVersion && std::find(supported_versions().begin(), supported_versions().end(),
                                          v) != supported_versions().end();
}

Protocol::Protocol(EngineApi api, std::shared_ptr<frontend::Inflight> pending)
    : api_(api), pending_(std::move(pending)) {}

Protocol::~Protocol() { cancel_all(); }

void Protocol::cancel_all() {
  std::map<std::string, std::weak_ptr<ToolCall>> calls;
  {
    std::lock_guard lock(mutex_);
    calls.swap(calls_);
  }
  for (auto& [id, weak] : calls)
    if (auto call = weak.lock()) call->cancel();
}

std::shared_ptr<ToolCall> Protocol::handle(const Json& message,
                                           const std::shared_ptr<Channel>& channel) {
  const jsonrpc::Kind kind = kind_of(message);
  if (kind == jsonrpc::Kind::response) return nullptr;  // we send no requests: nothing to match
  const std::string method = message["method"].get<std::string>();
  const Json params = message.value("params", Json::object());
  if (kind == jsonrpc::Kind::notification) {
    on_notification(method, params);
    return nullptr;
  }
  Request r{message["id"], method, params};
  std::shared_ptr<ToolCall> started;
  try {
    const std::string version = meta_version(params);
    if (!version.empty() && version != kModernVersion && r.method != "server/discover")
      throw unsupported_version(version);
    r.modern = version == kModernVersion;
    Json result = dispatch(r, channel, started);
    if (!started) channel->answer(jsonrpc::result(r.id, std::move(result)));
  } catch (const RpcError& e) {
    channel->answer(error_response(r.id, e));
  } catch (const std::exception& e) {
    channel->answer(
        jsonrpc::error(r.id, jsonrpc::kInternalError, std::string("Internal error: ") + e.what()));
  }
  return started;
}

Json Protocol::dispatch(const Request& r, const std::shared_ptr<Channel>& channel,
                        std::shared_ptr<ToolCall>& started) {
  if (r.method == "initialize") return initialize(r);
  if (r.method == "server/discover") return discover(r);
  if (r.method == "ping") return r.modern ? modern_result(Json::object(), false) : Json::object();
  if (r.method != "tools/list" && r.method != "tools/call")
    throw RpcError(jsonrpc::kMethodNotFound, "Method not found: " + r.method);
  if (!r.modern) {
    std::lock_guard lock(mutex_);
    if (!initialized_)
      throw RpcError(jsonrpc::kInvalidRequest,
                     "the session is not initialized: send 'initialize' first (or a "
                     "2026-07-28 request carrying its protocol version in _meta)");
  }
  if (r.method == "tools/list") {
    Json result = {{"tools", tool_definitions(served_kinds())}};
    return r.modern ? modern_result(std::move(result), true) : result;
  }
  return call_tool(r, channel, started);
}

Json Protocol::initialize(const Request& r) {
  if (!r.params.contains("protocolVersion") || !r.params["protocolVersion"].is_string())
    throw RpcError(jsonrpc::kInvalidParams, "Invalid params: 'protocolVersion' must be a string",
                   Json{{"field", "protocolVersion"}});
  const std::string asked = r.params["protocolVersion"].get<std::string>();
  // The client's revision when we speak it, else our newest handshake revision (the client
  // then decides whether it can go on).
  const std::string chosen = is_handshake_version(asked) ? asked : "2025-11-25";
  {
    std::lock_guard lock(mutex_);
    if (initialized_)
      throw RpcError(jsonrpc::kInvalidRequest, "the session is already initialized");
    initialized_ = true;
    version_ = chosen;
  }
  return Json{{"protocolVersion", chosen},
              {"capabilities", capabilities()},
              {"serverInfo", server_info()},
              {"instructions", kInstructions}};
}

Json Protocol::discover(const Request& r) const {
  const std::string asked = meta_version(r.params);
  if (!asked.empty() && asked != kModernVersion) throw unsupported_version(asked);
  return modern_result(Json{{"supportedVersions", supported_versions()},
                            {"capabilities", capabilities()},
                            {"instructions", kInstructions},
                            {"_meta", {{kServerInfoMetaKey, server_info()}}}},
                       true);
}

Json Protocol::call_tool(const Request& r, const std::shared_ptr<Channel>& channel,
                         std::shared_ptr<ToolCall>& started) {
  if (!r.params.contains("name") || !r.params["name"].is_string())
    throw RpcError(jsonrpc::kInvalidParams, "Invalid params: 'name' must be a string",
                   Json{{"field", "name"}});
  const std::string name = r.params["name"].get<std::string>();
  const std::optional<Tool> tool = find_tool(name);
  if (!tool)
    throw RpcError(jsonrpc::kInvalidParams, "Unknown tool: " + name, Json{{"field", "name"}});
  const Json arguments = r.params.value("arguments", Json::object());
  check_arguments(*tool, arguments);

  if (*tool == Tool::kListModels) {
    Json result = list_models();
    return r.modern ? modern_result(std::move(result), false) : result;
  }
  std::optional<EngineTask> work;
  try {
    work = engine_task(*tool, arguments);
  } catch (const frontend::RequestRefused& e) {  // as the engine's refusals were: a tool error
    Json result = tool_result(e.what(), nullptr, true);
    return r.modern ? modern_result(std::move(result), false) : result;
  }
  ToolCall::Options options{r.id, nullptr, r.modern};
  if (r.params.contains("_meta") && r.params["_meta"].is_object())
    options.progress_token = r.params["_meta"].value("progressToken", Json(nullptr));
  auto call = std::make_shared<ToolCall>(api_, pending_, channel, std::move(options));
  {
    std::lock_guard lock(mutex_);
    std::erase_if(calls_, [](const auto& entry) { return entry.second.expired(); });
    calls_[dump(r.id)] = call;
  }
  started = call;
  call->start(*work);
  return nullptr;
}

uint32_t Protocol::served_kinds() const {
  uint32_t kinds = 0;
  try {
    const Json models = Json::parse(api_.list_models(), nullptr, false);
    if (models.is_object() && models.contains("data") && models["data"].is_array())
      for (const Json& m : models["data"])
        if (m.is_object() && m.contains("id") && m["id"].is_string())
          kinds |= api_.task_kinds(m["id"].get<std::string>());
  } catch (const zen::http::EngineUnavailable&) {
  }
  return kinds;
}

Json Protocol::list_models() const {
  try {
    const Json models = Json::parse(api_.list_models(), nullptr, false);
    if (is_engine_error(models)) return tool_result(engine_error_text(models), nullptr, true);
    Json list = models.is_object() ? models.value("data", Json::array()) : Json::array();
    std::string ids;
    for (const Json& m : list) ids += (ids.empty() ? "" : "\n") + m.value("id", std::string());
    return tool_result(ids.empty() ? "(no model is loaded yet)" : ids,
                       Json{{"models", std::move(list)}}, false);
  } catch (const zen::http::EngineUnavailable& e) {
    return tool_result(e.what(), nullptr, true);
  }
}

void Protocol::on_notification(const std::string& method, const Json& params) {
  if (method == "notifications/initialized") return;  // initialize already opened the session
  if (method != "notifications/cancelled" || !params.contains("requestId")) return;
  std::shared_ptr<ToolCall> call;
  {
    std::lock_guard lock(mutex_);
    auto it = calls_.find(dump(params["requestId"]));
    if (it == calls_.end()) return;
    call = it->second.lock();
    calls_.erase(it);
  }
  if (call) call->cancel();
}

}  // namespace zen::mcp_server
