#include "tool_loop.h"

#include <chrono>
#include <cstdio>

#include "api_error.h"
#include "mcp/tool_hub.h"
#include "worker_threads.h"

namespace zen::serving {
namespace {

// A delta worth sending: something besides its "type" and "choice".
bool has_payload(const Json& delta) {
  for (const char* key : {"content", "reasoning_content", "tool_calls", "logprobs"})
    if (delta.contains(key)) return true;
  return false;
}

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

bool add_hub_tools(Json& body, const mcp::ToolHub& hub, const std::string& model) {
  if (!body.is_object() || body.value("endpoint", Json()) != "chat") return false;
  // As ordered JSON, like the request's own (the template renders keys in their order).
  const Json hub_tools = Json::parse(
      hub.openai_tools(model).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  if (!hub_tools.is_array() || hub_tools.empty()) return false;
  Json tools = body.value("tools", Json());
  if (tools.is_null()) tools = Json::array();
  if (!tools.is_array()) return false;  // parse_generation_request names the error
  if (const Json n = body.value("n", Json()); n.is_number_integer() && n.get<int64_t>() > 1)
    throw ApiError::invalid("n",
                            "'n' must be 1 with this server's MCP tools (each choice would run "
                            "tool calls of its own)");
  for (const Json& tool : tools) {
    const Json* fn = tool.is_object() && tool.contains("function") ? &tool["function"] : nullptr;
    if (!fn || !fn->is_object() || !fn->contains("name") || !(*fn)["name"].is_string()) continue;
    const std::string name = (*fn)["name"].get<std::string>();
    if (hub.owns(name, model))
      throw ApiError::invalid(
          "tools", "'tools' defines '" + name + "', the name of one of this server's MCP tools");
  }
  for (const Json& tool : hub_tools) tools.push_back(tool);
  body["tools"] = std::move(tools);
  return true;
}

ToolLoop::ToolLoop(Json body, std::string api_id, EmitFn emit, Services services)
    : body_(std::move(body)),
      api_id_(std::move(api_id)),
      emit_(std::move(emit)),
      services_(std::move(services)),
      messages_(body_.value("messages", Json())) {}

void ToolLoop::start() {
  const Json body = round_body();
  services_.submit(body, round_emit());
}

// The body of the next round: the conversation so far; a forced tool_choice forced the first
// round only, and after max_rounds executed rounds the model must answer.
Json ToolLoop::round_body() const {
  Json body = body_;
  body["messages"] = messages_;
  if (executed_rounds_ >= services_.hub->max_rounds())
    body["tool_choice"] = "none";
  else if (executed_rounds_ > 0 && body.contains("tool_choice") && body["tool_choice"] != "none")
    body["tool_choice"] = "auto";
  return body;
}

EmitFn ToolLoop::round_emit() {
  calls_.clear();
  mcp_calls_.clear();
  client_calls_ = 0;
  content_.clear();
  run_tools_ = false;
  return [self = shared_from_this()](const Json& event, bool last) { self->on_event(event, last); };
}

void ToolLoop::on_event(const Json& event, bool last) {
  if (ended_) return;
  const std::string type = event.value("type", "");
  if (type == "done") {
    on_round_done(event);
    return;
  }
  if (type == "start") {
    if (!started_) emit(event, last);  // the first round's: later rounds continue the answer
    started_ = true;
  } else if (type == "delta") {
    Json delta = event;
    if (auto it = delta.find("content"); it != delta.end() && it->is_string())
      content_ += it->get<std::string>();
    if (auto it = delta.find("tool_calls"); it != delta.end()) {
      Json shown = visible_calls(*it);
      if (shown.empty())
        delta.erase("tool_calls");
      else
        *it = std::move(shown);
    }
    if (has_payload(delta) || last) emit(std::move(delta), last);
  } else if (type == "finish") {
    if (!mcp_calls_.empty() && client_calls_ > 0)
      log(api_id_ + " mcp: " + std::to_string(mcp_calls_.size()) +
          " MCP call(s) dropped: the answer also calls the client's tools");
    run_tools_ = event.value("finish_reason", "") == "tool_calls" && !mcp_calls_.empty() &&
                 client_calls_ == 0;
    if (!run_tools_ || last) emit(event, last);
  } else {
    emit(event, last);  // anything else (an error) passes as it is
  }
}

Json ToolLoop::visible_calls(const Json& calls) {
  Json shown = Json::array();
  if (!calls.is_array()) return shown;
  for (const Json& entry : calls) {
    if (!entry.is_object()) continue;
    const Json* fn =
        entry.contains("function") && entry["function"].is_object() ? &entry["function"] : nullptr;
    const int index = entry.value("index", 0);
    auto it = calls_.find(index);
    if (it == calls_.end()) {  // the call's first delta: it names the function
      Call call;
      call.id = entry.value("id", "");
      if (fn) call.name = fn->value("name", "");
      call.mcp = services_.hub->owns(call.name, services_.model);
      if (!call.mcp) call.client_index = client_calls_++;
      it = calls_.emplace(index, std::move(call)).first;
      if (it->second.mcp) mcp_calls_.push_back(&it->second);
    }
    Call& call = it->second;
    if (fn && fn->contains("arguments") && (*fn)["arguments"].is_string())
      call.arguments += (*fn)["arguments"].get<std::string>();
    if (call.mcp) continue;
    Json out = entry;
    out["index"] = call.client_index;
    shown.push_back(std::move(out));
  }
  return shown;
}

void ToolLoop::on_round_done(const Json& done) {
  if (const Json* u = done.contains("usage") ? &done["usage"] : nullptr; u && u->is_object()) {
    prompt_tokens_ += u->value("prompt_tokens", uint64_t{0});
    completion_tokens_ += u->value("completion_tokens", uint64_t{0});
    if (u->contains("prompt_tokens_details") && u->at("prompt_tokens_details").is_object())
      cached_tokens_ += u->at("prompt_tokens_details").value("cached_tokens", uint64_t{0});
  }
  if (!run_tools_) {
    Json event = done;
    event["usage"] = usage();
    emit(std::move(event), true);
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
  log(api_id_ + " mcp " + call.name + " " + took +
      (result.is_error ? " error: " + log_reason(result.text) : std::string(" ok")));
  if (pending_calls_.fetch_sub(1) == 1) next_round();  // the round's last call goes on
}

void ToolLoop::next_round() {
  if (cancelled_) {
    end_cancelled();
    return;
  }
  Json calls = Json::array();
  for (const Call* c : mcp_calls_) {
    // Arguments that are not an object would make the template refuse the next round; the
    // tool message says what was wrong with them.
    const std::string arguments = arguments_object(c->arguments).is_null() ? "{}" : c->arguments;
    calls.push_back(Json{{"id", c->id},
                         {"type", "function"},
                         {"function", {{"name", c->name}, {"arguments", arguments}}}});
  }
  messages_.push_back(Json{{"role", "assistant"},
                           {"content", content_.empty() ? Json(nullptr) : Json(content_)},
                           {"tool_calls", std::move(calls)}});
  for (const Call* c : mcp_calls_)
    messages_.push_back(Json{{"role", "tool"}, {"tool_call_id", c->id}, {"content", c->result}});
  ++executed_rounds_;

  const Json body = round_body();
  try {
    services_.submit(body, round_emit());
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

Json ToolLoop::usage() const {
  return Json{{"prompt_tokens", prompt_tokens_},
              {"completion_tokens", completion_tokens_},
              {"total_tokens", prompt_tokens_ + completion_tokens_},
              {"prompt_tokens_details", {{"cached_tokens", cached_tokens_}}}};
}

void ToolLoop::emit(Json event, bool last) {
  if (ended_) return;
  ended_ = last;
  emit_(event, last);
  if (last && services_.ended) services_.ended();
}

void ToolLoop::end_cancelled() {
  log(api_id_ + " cancelled: during MCP tool calls");
  emit(Json{{"type", "finish"}, {"choice", 0}, {"finish_reason", "cancelled"}}, false);
  emit(Json{{"type", "done"}, {"usage", usage()}}, true);
}

void ToolLoop::end_failed(const ApiError& error) {
  log(api_id_ + " failed after MCP tool calls: " + error.what());
  Json event = {{"type", "error"}};
  const nlohmann::json body = error.to_json();  // named: items() does not keep it alive
  for (const auto& [key, value] : body.items()) event[key] = value;
  emit(std::move(event), true);
}

void ToolLoop::log(const std::string& line) const {
  if (services_.log) services_.log(line);
}

}  // namespace zen::serving
