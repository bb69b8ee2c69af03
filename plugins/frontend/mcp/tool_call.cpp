#include "tool_call.h"

#include "tools.h"

namespace zen::mcp_server {
namespace {

// Progress notifications at most this often: enough for a live display, cheap on the wire.
constexpr auto kProgressInterval = std::chrono::milliseconds(100);

std::string error_message(const Json& host_error) {
  const Json& e = host_error.contains("error") ? host_error["error"] : host_error;
  if (e.is_object() && e.contains("message") && e["message"].is_string())
    return e["message"].get<std::string>();
  return e.is_string() ? e.get<std::string>() : "the engine failed: " + dump(e);
}

}  // namespace

ToolCall::ToolCall(EngineApi api, std::shared_ptr<frontend::Inflight> pending,
                   std::shared_ptr<Channel> channel, Options options)
    : api_(api),
      pending_(std::move(pending)),
      channel_(std::move(channel)),
      options_(std::move(options)) {}

void ToolCall::start(const Json& engine_request) {
  const frontend::Submitted sent = frontend::submit_counted(
      api_, dump(engine_request), pending_,
      [call = shared_from_this()](std::string event, bool last) { call->on_event(event, last); });
  if (sent.status != ZEN_OK) {
    if (sent.refused_silently)
      fail("the engine refused the request (status " +
           std::to_string(static_cast<int>(sent.status)) + ")");
    return;
  }
  const uint64_t id = sent.id;
  bool cancel_now = false;
  {
    std::lock_guard lock(mutex_);
    engine_id_ = id;
    cancel_now = cancelled_ && !answered_;
  }
  if (cancel_now) api_.cancel(id);  // cancelled while submit() was running
}

void ToolCall::cancel() {
  std::optional<uint64_t> id;
  {
    std::lock_guard lock(mutex_);
    if (cancelled_ || answered_) return;
    cancelled_ = true;
    id = engine_id_;
  }
  if (id) api_.cancel(*id);
}

void ToolCall::on_event(const std::string& event_json, bool last) {
  {
    std::lock_guard lock(mutex_);
    if (cancelled_ || answered_) return;
  }
  const Json ev = Json::parse(event_json, nullptr, false);
  const std::string type = ev.is_object() ? ev.value("type", "") : "";
  if (!ev.is_object()) {
    fail("the engine sent an unreadable event");
  } else if (type == "delta") {
    on_delta(ev);
  } else if (type == "finish") {
    finish_reason_ = ev.value("finish_reason", "stop");
    if (ev.contains("error")) error_ = error_message(ev);
  } else if (type == "done") {
    finish(ev.value("usage", Json::object()));
  } else if (type == "result") {  // a tokenize call's whole answer
    answer(tokenize_result(ev.value("result", Json())));
  } else if (type == "error" || (type.empty() && ev.contains("error"))) {
    fail(error_message(ev));
  }
  if (last) fail("the engine ended the request without a result");  // no-op once answered
}

void ToolCall::on_delta(const Json& ev) {
  if (ev.contains("content") && ev["content"].is_string())
    content_ += ev["content"].get_ref<const std::string&>();
  ++deltas_;  // one delta per generated token that produced output
  if (options_.progress_token.is_null()) return;
  const auto now = std::chrono::steady_clock::now();
  if (deltas_ > 1 && now - last_progress_ < kProgressInterval) return;
  last_progress_ = now;
  channel_->notify(jsonrpc::notification(
      "notifications/progress",
      Json{{"progressToken", options_.progress_token},
           {"progress", deltas_},
           {"message", std::to_string(deltas_) + (deltas_ == 1 ? " token" : " tokens")}}));
}

void ToolCall::finish(const Json& usage) {
  if (!error_.empty() || finish_reason_ == "error" || finish_reason_ == "cancelled")
    return fail(error_.empty() ? "the generation was " + finish_reason_ : error_);
  Json brief_usage = Json::object();
  for (const char* key : {"prompt_tokens", "completion_tokens", "total_tokens"})
    if (usage.contains(key)) brief_usage[key] = usage[key];
  Json result = {{"content", Json::array({{{"type", "text"}, {"text", content_}}})},
                 {"structuredContent",
                  {{"content", content_},
                   {"finish_reason", finish_reason_},
                   {"usage", std::move(brief_usage)}}},
                 {"isError", false}};
  answer(std::move(result));
}

void ToolCall::fail(const std::string& message) {
  answer(
      Json{{"content", Json::array({{{"type", "text"}, {"text", message}}})}, {"isError", true}});
}

void ToolCall::answer(Json result) {
  if (options_.modern) result["resultType"] = "complete";
  {
    std::lock_guard lock(mutex_);
    if (cancelled_ || answered_) return;
    answered_ = true;
  }
  channel_->answer(jsonrpc::result(options_.rpc_id, std::move(result)));
}

}  // namespace zen::mcp_server
