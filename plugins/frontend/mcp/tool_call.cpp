#include "tool_call.h"

namespace zen::mcp_server {
namespace {

// Progress notifications at most this often: enough for a live display, cheap on the wire.
constexpr auto kProgressInterval = std::chrono::milliseconds(100);

std::string message_of(const zen::task::TaskError* e, const char* fallback) {
  return e && !e->message.empty() ? e->message : fallback;
}

}  // namespace

ToolCall::ToolCall(EngineApi api, std::shared_ptr<frontend::Inflight> pending,
                   std::shared_ptr<Channel> channel, Options options)
    : api_(api),
      pending_(std::move(pending)),
      channel_(std::move(channel)),
      options_(std::move(options)) {}

frontend::Submitted ToolCall::submit(const EngineTask& t) {
  auto call = shared_from_this();
  if (const auto* generate = std::get_if<task::GenerateRequest>(&t))
    return frontend::submit_generate_counted(
        api_, *generate, pending_,
        [call](task::GenerateEvent ev, bool last) { call->on_event(ev, last); });
  if (const auto* embed = std::get_if<http::EmbedBody>(&t))
    return frontend::submit_embed_counted(
        api_, embed->typed().request, pending_,
        [call](const zen_embed_result* r, const zen_task_error* e) {
          call->on_answer(r ? std::optional<Json>(embed_result(*r)) : std::nullopt, e);
        });
  if (const auto* rerank = std::get_if<http::RerankBody>(&t)) {
    auto body = std::make_shared<const http::RerankBody>(*rerank);  // the results name documents
    return frontend::submit_rerank_counted(
        api_, rerank->typed().request, pending_,
        [call, body](const zen_rerank_result* r, const zen_task_error* e) {
          call->on_answer(r ? std::optional<Json>(rerank_result(*body, *r)) : std::nullopt, e);
        });
  }
  const auto& tokenize = std::get<frontend::TokenizeBody>(t);
  return frontend::submit_tokenize_counted(
      api_, tokenize.typed(), pending_,
      [call](const zen_tokenize_result* r, const zen_task_error* e) {
        call->on_answer(r ? std::optional<Json>(tokenize_result(*r)) : std::nullopt, e);
      });
}

void ToolCall::start(const EngineTask& t) {
  const frontend::Submitted sent = submit(t);
  if (!sent.supported) return fail("this engine has no typed tasks for this tool (ABI 1.5)");
  if (sent.status != ZEN_OK) return;  // the refusal came through the callback
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

void ToolCall::on_event(const task::GenerateEvent& ev, bool last) {
  {
    std::lock_guard lock(mutex_);
    if (cancelled_ || answered_) return;
  }
  switch (ev.kind) {
    case ZEN_EVENT_START:
      break;
    case ZEN_EVENT_DELTA:
      on_delta(ev);
      break;
    case ZEN_EVENT_FINISH:
      finish_reason_ = task::finish_name(ev.finish_reason);
      if (ev.finish_reason == ZEN_FINISH_ERROR)
        error_ = message_of(ev.error ? &*ev.error : nullptr, "generation failed");
      break;
    case ZEN_EVENT_DONE:
      finish(ev);
      break;
    case ZEN_EVENT_ERROR:
      fail(message_of(ev.error ? &*ev.error : nullptr, "the engine failed without a message"));
      break;
  }
  if (last) fail("the engine ended the request without a result");  // no-op once answered
}

void ToolCall::on_delta(const task::GenerateEvent& ev) {
  content_ += ev.content;
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

void ToolCall::on_answer(std::optional<Json> result, const zen_task_error* e) {
  if (result) return answer(std::move(*result));
  const task::TaskError error = e ? task::TaskError::copy_of(*e) : task::TaskError{};
  fail(message_of(&error, "the engine failed without a message"));
}

void ToolCall::finish(const task::GenerateEvent& done) {
  if (!error_.empty() || finish_reason_ == "error" || finish_reason_ == "cancelled")
    return fail(error_.empty() ? "the generation was " + finish_reason_ : error_);
  const Json usage = {{"prompt_tokens", done.prompt_tokens},
                      {"completion_tokens", done.completion_tokens},
                      {"total_tokens", done.prompt_tokens + done.completion_tokens}};
  Json result = {{"content", Json::array({{{"type", "text"}, {"text", content_}}})},
                 {"structuredContent",
                  {{"content", content_}, {"finish_reason", finish_reason_}, {"usage", usage}}},
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
