#include "mcp/session.h"

#include <set>

namespace zen::mcp {

namespace {

using nlohmann::json;

constexpr int kMaxToolPages = 1000;  // a server whose cursors never end is cut off here
constexpr auto kCancelNoticeTimeout = std::chrono::seconds(2);

#ifndef ZEN_VERSION
#define ZEN_VERSION "unknown"
#endif

}  // namespace

bool is_supported_protocol_version(const std::string& version) {
  // The tools API we use is the same in every handshake-era revision.
  static const std::set<std::string> supported = {"2024-11-05", "2025-03-26", "2025-06-18",
                                                  "2025-11-25"};
  return supported.count(version) > 0;
}

Session::Session(std::string server_name, std::unique_ptr<Transport> transport)
    : name_(std::move(server_name)), transport_(std::move(transport)) {}

Session::~Session() { transport_->close(); }

json Session::call(std::string_view method, json params, const CallControl& control) {
  int64_t id = ids_.next();
  json response = transport_->request(jsonrpc::request(id, method, std::move(params)), control);
  return result_of(response);
}

void Session::initialize(const CallControl& control) {
  json params = {{"protocolVersion", kOfferedProtocolVersion},
                 {"capabilities", json::object()},
                 {"clientInfo", {{"name", "zen-engine"}, {"version", ZEN_VERSION}}}};
  json result;
  try {
    result = call("initialize", std::move(params), control);
  } catch (const CallAbandoned&) {
    throw;  // the caller knows the time limit it set
  } catch (const RpcError& e) {
    throw CallError("mcp server '" + name_ + "' refused initialize: " + e.what());
  }
  if (!result.is_object() || !result.contains("protocolVersion") ||
      !result["protocolVersion"].is_string())
    throw CallError("mcp server '" + name_ + "' sent an initialize result without protocolVersion");
  std::string version = result["protocolVersion"].get<std::string>();
  if (!is_supported_protocol_version(version))
    throw CallError("mcp server '" + name_ + "' speaks protocol " + version +
                    ", which zen-engine does not support (it offers " + kOfferedProtocolVersion +
                    ")");
  protocol_version_ = version;
  transport_->set_protocol_version(version);
  transport_->notify(jsonrpc::notification("notifications/initialized", nullptr), control);
}

std::vector<ToolInfo> Session::list_tools(const CallControl& control) {
  std::vector<ToolInfo> tools;
  std::set<std::string> seen_cursors;
  json params = nullptr;
  for (int page = 0; page < kMaxToolPages; ++page) {
    json result = call("tools/list", params, control);
    if (!result.is_object() || !result.contains("tools") || !result["tools"].is_array())
      throw CallError("mcp server '" + name_ + "' sent a tools/list result without tools");
    for (const auto& tool : result["tools"]) {
      if (!tool.is_object() || !tool.contains("name") || !tool["name"].is_string()) continue;
      ToolInfo info;
      info.name = tool["name"].get<std::string>();
      if (tool.contains("description") && tool["description"].is_string())
        info.description = tool["description"].get<std::string>();
      else if (tool.contains("title") && tool["title"].is_string())
        info.description = tool["title"].get<std::string>();
      info.input_schema = tool.contains("inputSchema") && tool["inputSchema"].is_object()
                              ? tool["inputSchema"]
                              : json{{"type", "object"}};
      tools.push_back(std::move(info));
    }
    auto cursor = result.find("nextCursor");
    if (cursor == result.end() || !cursor->is_string() || cursor->get<std::string>().empty())
      return tools;
    if (!seen_cursors.insert(cursor->get<std::string>()).second)
      throw CallError("mcp server '" + name_ + "' repeats a tools/list cursor");
    params = {{"cursor", *cursor}};
  }
  throw CallError("mcp server '" + name_ + "' lists more than " + std::to_string(kMaxToolPages) +
                  " pages of tools");
}

json Session::call_tool(const std::string& name, const json& arguments,
                        const CallControl& control) {
  int64_t id = ids_.next();
  json params = {{"name", name}, {"arguments", arguments}};
  try {
    return result_of(
        transport_->request(jsonrpc::request(id, "tools/call", std::move(params)), control));
  } catch (const CallAbandoned& abandoned) {
    // Tell the server to stop working on it; it must not answer, and a late answer is dropped.
    json notice = {
        {"requestId", id},
        {"reason", abandoned.reason == CallAbandoned::Reason::timeout ? "timed out"
                                                                      : "cancelled by the client"}};
    try {
      transport_->notify(jsonrpc::notification("notifications/cancelled", std::move(notice)),
                         CallControl::within(kCancelNoticeTimeout));
    } catch (const CallError&) {
    }
    throw;
  }
}

void Session::ping(const CallControl& control) { call("ping", nullptr, control); }

}  // namespace zen::mcp
