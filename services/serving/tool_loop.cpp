#include "tool_loop.h"

#include <chrono>
#include <cstdio>

#include "api_error.h"
#include "mcp/tool_hub.h"
#include "worker_threads.h"

namespace zen::serving {
namespace {

// The first line of a tool's text, short enough for a log line.
std::string log_reason(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() > 200) line = line.substr(0, 200) + "...";
  return line;
}

// A call's arguments as the model wrote them, read as a JSON object (blank: no arguments);
// null when they are not one.
nlohmann::json arguments_object(const std::string& text) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return nlohmann::json::object();
  nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return parsed.is_object() ? parsed : nlohmann::json();
}

}  // namespace

bool add_hub_tools(GenerationRequest& request, const mcp::ToolHub& hub, const std::string& model) {
  if (!request.chat) return false;
  const nlohmann::json hub_tools = hub.openai_tools(model);
  if (!hub_tools.is_array() || hub_tools.empty()) return false;
  if (request.n > 1)
    throw ApiError::invalid("n",
                            "'n' must be 1 with this server's MCP tools (each choice would run "
                            "tool calls of its own)");
  for (const task::Tool& tool : request.tools)
    if (hub.owns(tool.name, model))
      throw ApiError::invalid("tools", "'tools' defines '" + tool.name +
                                           "', the name of one of this server's MCP tools");
  const auto text = [](const nlohmann::json& j) {
    return j.is_null()     ? std::string()
           : j.is_string() ? j.get<std::string>()
                           : j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  for (const nlohmann::json& tool : hub_tools) {
    const nlohmann::json& fn = tool.at("function");
    request.tools.push_back(task::Tool{fn.at("name").get<std::string>(),
                                       text(fn.value("description", nlohmann::json())),
                                       text(fn.value("parameters", nlohmann::json()))});
    request.tool_names.push_back(request.tools.back().name);
  }
  return true;
}

ToolLoop::ToolLoop(GenerationRequest request, EmitFn emit, Services services)
    : request_(std::move(request)),
      emit_(std::move(emit)),
      services_(std::move(services)),
      messages_(request_.messages) {}

void ToolLoop::start() { services_.submit(round_request(), round_emit()); }

// The next round: the conversation so far; a forced tool_choice forced the first round only,
// and after max_rounds executed rounds the model must answer.
GenerationRequest ToolLoop::round_request() const {
  GenerationRequest r = request_;
  r.messages = messages_;
  if (executed_rounds_ >= services_.hub->max_rounds())
    r.tool_choice = ZEN_TOOL_CHOICE_NONE;
  else if (executed_rounds_ > 0 && r.tool_choice != ZEN_TOOL_CHOICE_NONE)
    r.tool_choice = ZEN_TOOL_CHOICE_AUTO;
  return r;
}

EmitFn ToolLoop::round_emit() {
  calls_.clear();
  mcp_calls_.clear();
  client_calls_ = 0;
  content_.clear();
  run_tools_ = false;
  return [self = shared_from_this()](const task::GenerateEvent& event, bool last) {
    self->on_event(event, last);
  };
}

void ToolLoop::on_event(const task::GenerateEvent& event, bool last) {
  if (ended_) return;
  switch (event.kind) {
    case ZEN_EVENT_DONE:
      on_round_done(event);
      return;
    case ZEN_EVENT_START:
      if (!started_) emit(event, last);  // the first round's: later rounds continue the answer
      started_ = true;
      return;
    case ZEN_EVENT_DELTA: {
      content_ += event.content;
      task::GenerateEvent delta = event;
      delta.tool_calls = visible_calls(event.tool_calls);
      if (!delta.empty_delta() || last) emit(delta, last);
      return;
    }
    case ZEN_EVENT_FINISH:
      if (!mcp_calls_.empty() && client_calls_ > 0)
        log(request_.tag + " mcp: " + std::to_string(mcp_calls_.size()) +
            " MCP call(s) dropped: the answer also calls the client's tools");
      run_tools_ =
          event.finish_reason == ZEN_FINISH_TOOL_CALLS && !mcp_calls_.empty() && client_calls_ == 0;
      if (!run_tools_ || last) emit(event, last);
      return;
    default:
      emit(event, last);  // anything else (an error) passes as it is
  }
}

std::vector<task::ToolCallDelta> ToolLoop::visible_calls(
    const std::vector<task::ToolCallDelta>& calls) {
  std::vector<task::ToolCallDelta> shown;
  for (const task::ToolCallDelta& piece : calls) {
    auto it = calls_.find(piece.index);
    if (it == calls_.end()) {  // the call's first piece: it names the function
      Call call;
      call.id = piece.id;
      call.name = piece.name;
      call.mcp = services_.hub->owns(call.name, services_.model);
      if (!call.mcp) call.client_index = client_calls_++;
      it = calls_.emplace(piece.index, std::move(call)).first;
      if (it->second.mcp) mcp_calls_.push_back(&it->second);
    }
    Call& call = it->second;
    call.arguments += piece.arguments;
    if (call.mcp) continue;
    task::ToolCallDelta out = piece;
    out.index = call.client_index;
    shown.push_back(std::move(out));
  }
  return shown;
}

void ToolLoop::on_round_done(const task::GenerateEvent& done) {
  prompt_tokens_ += done.prompt_tokens;
  completion_tokens_ += done.completion_tokens;
  cached_tokens_ += done.cached_tokens;
  if (!run_tools_) {
    emit(done_event(), true);
    return;
  }
  if (cancelled_) {
    end_cancelled();
    return;
  }
  pending_calls_ = mcp_calls_.size();
  std::vector<std::function<void()>> tasks;
  for (size_t i = 0; i < mcp_calls_.size(); ++i)
    tasks.push_back([self = shared_from_this(), i] { self->run_call(i); });
  if (!services_.workers->run(std::move(tasks))) end_cancelled();  // the service is stopping
}

mcp::ToolCallResult ToolLoop::call_tool(const Call& call) {
  const nlohmann::json arguments = arguments_object(call.arguments);
  if (arguments.is_null())
    return {"the arguments of '" + call.name + "' are not a JSON object: " + call.arguments, true};
  try {
    return services_.hub->call(call.name, arguments, &cancelled_);
  } catch (const std::exception& e) {
    return {"mcp tool '" + call.name + "' failed: " + e.what(), true};
  }
}

void ToolLoop::run_call(size_t index) {
  Call& call = *mcp_calls_[index];
  const auto begin = std::chrono::steady_clock::now();
  const mcp::ToolCallResult result = call_tool(call);
  call.result = result.text;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  char took[32];
  std::snprintf(took, sizeof took, "%.2f s", seconds);
  log(request_.tag + " mcp " + call.name + " " + took +
      (result.is_error ? " error: " + log_reason(result.text) : std::string(" ok")));
  if (pending_calls_.fetch_sub(1) == 1) next_round();  // the round's last call goes on
}

void ToolLoop::next_round() {
  if (cancelled_) {
    end_cancelled();
    return;
  }
  task::Message assistant = task::Message::text(ZEN_ROLE_ASSISTANT, content_);
  if (content_.empty()) assistant.content.clear();
  for (const Call* c : mcp_calls_) {
    // Arguments that are not an object would make the template refuse the next round; the
    // tool message says what was wrong with them.
    const std::string arguments = arguments_object(c->arguments).is_null() ? "{}" : c->arguments;
    assistant.tool_calls.push_back(task::ToolCall{c->id, c->name, arguments});
  }
  messages_.push_back(std::move(assistant));
  for (const Call* c : mcp_calls_) {
    task::Message result = task::Message::text(ZEN_ROLE_TOOL, c->result);
    result.tool_call_id = c->id;
    messages_.push_back(std::move(result));
  }
  ++executed_rounds_;

  try {
    services_.submit(round_request(), round_emit());
  } catch (const ApiError& e) {
    if (cancelled_) {
      end_cancelled();  // the service is going away: its engines refuse new rounds
    } else {
      end_failed(e);
    }
  } catch (const std::exception& e) {
    end_failed(ApiError::internal(e.what()));
  }
}

task::GenerateEvent ToolLoop::done_event() const {
  task::GenerateEvent done;
  done.kind = ZEN_EVENT_DONE;
  done.prompt_tokens = prompt_tokens_;
  done.completion_tokens = completion_tokens_;
  done.cached_tokens = cached_tokens_;
  return done;
}

void ToolLoop::emit(const task::GenerateEvent& event, bool last) {
  if (ended_) return;
  ended_ = last;
  emit_(event, last);
  if (last && services_.ended) services_.ended();
}

void ToolLoop::end_cancelled() {
  log(request_.tag + " cancelled: during MCP tool calls");
  task::GenerateEvent finish;
  finish.kind = ZEN_EVENT_FINISH;
  finish.finish_reason = ZEN_FINISH_CANCELLED;
  emit(finish, false);
  emit(done_event(), true);
}

void ToolLoop::end_failed(const ApiError& error) {
  log(request_.tag + " failed after MCP tool calls: " + error.what());
  task::GenerateEvent failed;
  failed.kind = ZEN_EVENT_ERROR;
  failed.error = error.task_error();
  emit(failed, true);
}

void ToolLoop::log(const std::string& line) const {
  if (services_.log) services_.log(line);
}

}  // namespace zen::serving
