#include "mcp/json_rpc.h"

#include <algorithm>

#include <zen/json_depth.hpp>

namespace zen::mcp {

using nlohmann::json;

std::optional<CallAbandoned::Reason> CallControl::expired() const {
  if (cancelled && cancelled->load()) return CallAbandoned::Reason::cancelled;
  if (Clock::now() >= deadline) return CallAbandoned::Reason::timeout;
  return std::nullopt;
}

json parse_peer_json(std::string_view text, const std::string& server) {
  if (text::json_depth(text) > kMaxPeerJsonDepth)
    throw ProtocolViolation("mcp server '" + server + "' sent JSON nested deeper than " +
                            std::to_string(kMaxPeerJsonDepth) + " levels");
  return json::parse(text, nullptr, /*allow_exceptions=*/false);
}

json result_of(const json& response) {
  if (auto error = response.find("error"); error != response.end()) {
    if (!error->is_object()) throw CallError("malformed JSON-RPC error: " + error->dump());
    int code = error->contains("code") && (*error)["code"].is_number_integer()
                   ? (*error)["code"].get<int>()
                   : 0;
    std::string message = error->contains("message") && (*error)["message"].is_string()
                              ? (*error)["message"].get<std::string>()
                              : std::string("(no message)");
    throw RpcError(code, message + " (JSON-RPC error " + std::to_string(code) + ")");
  }
  auto result = response.find("result");
  if (result == response.end()) throw CallError("JSON-RPC response without result");
  return *result;
}

void PendingCalls::add(int64_t id) {
  std::lock_guard lock(mutex_);
  waiting_.emplace(id, std::nullopt);
}

bool PendingCalls::complete(int64_t id, json response) {
  {
    std::lock_guard lock(mutex_);
    auto it = waiting_.find(id);
    if (it == waiting_.end() || it->second) return false;
    it->second = std::move(response);
  }
  arrived_.notify_all();
  return true;
}

void PendingCalls::fail_all(const std::string& reason) {
  {
    std::lock_guard lock(mutex_);
    if (!failure_) failure_ = reason;
  }
  arrived_.notify_all();
}

json PendingCalls::wait(int64_t id, const CallControl& control) {
  std::unique_lock lock(mutex_);
  for (;;) {
    auto it = waiting_.find(id);
    if (it != waiting_.end() && it->second) {
      json response = std::move(*it->second);
      waiting_.erase(it);
      return response;
    }
    if (failure_) {
      waiting_.erase(id);
      throw CallError(*failure_);
    }
    if (auto why = control.expired()) {
      waiting_.erase(id);
      throw CallAbandoned(*why);
    }
    // The cancel flag has no way to notify us: wake up often enough to see it.
    auto wake = std::min(control.deadline, Clock::now() + std::chrono::milliseconds(50));
    arrived_.wait_until(lock, wake);
  }
}

void PendingCalls::forget(int64_t id) {
  std::lock_guard lock(mutex_);
  waiting_.erase(id);
}

}  // namespace zen::mcp
