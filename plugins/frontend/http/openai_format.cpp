#include "openai_format.h"

#include "reply.h"

namespace zen::http {

using nlohmann::json;

const char* const kSystemFingerprint = "zen-engine-http-0.1.0";

namespace {

bool is_true(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_boolean() && it->get<bool>();
}

std::string text_of(const json& ev, const char* key) {
  auto it = ev.find(key);
  return it != ev.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int choice_index(const json& ev) {
  auto it = ev.find("choice");
  return it != ev.end() && it->is_number_integer() ? it->get<int>() : 0;
}

const json* array_field(const json& ev, const char* key) {
  auto it = ev.find(key);
  return it != ev.end() && it->is_array() ? &*it : nullptr;
}

// Code points in UTF-8 text: the unit of OpenAI's text_offset (Python string indices).
uint64_t code_points(const std::string& s) {
  uint64_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

json choice_error(const json& ev) {
  auto it = ev.find("error");
  if (it != ev.end() && it->is_object()) return *it;
  bool cancelled = text_of(ev, "finish_reason") == "cancelled";
  return error_object(cancelled ? "the request was cancelled" : "generation failed", "server_error",
                      "", cancelled ? "cancelled" : "");
}

bool failed(const std::string& reason) { return reason == "error" || reason == "cancelled"; }

}  // namespace

GenerationOptions GenerationOptions::from_body(Api api, const json& body) {
  GenerationOptions o;
  o.api = api;
  o.stream = is_true(body, "stream");
  if (auto it = body.find("stream_options"); it != body.end() && it->is_object())
    o.include_usage = is_true(*it, "include_usage");
  if (api == Api::kChat) {
    o.logprobs = is_true(body, "logprobs");
  } else {
    auto it = body.find("logprobs");
    o.logprobs = it != body.end() && it->is_number_integer();
  }
  return o;
}

// ---- legacy completion logprobs ----------------------------------------------------------

json LegacyLogprobs::convert(const json& entries) {
  json out = {{"tokens", json::array()},
              {"token_logprobs", json::array()},
              {"top_logprobs", json::array()},
              {"text_offset", json::array()}};
  for (const json& e : entries) {
    if (!e.is_object()) continue;
    std::string token = text_of(e, "token");
    out["tokens"].push_back(token);
    out["token_logprobs"].push_back(e.value("logprob", json(nullptr)));
    json top = json::object();
    if (const json* alts = array_field(e, "top_logprobs"))
      for (const json& a : *alts)
        if (a.is_object()) top[text_of(a, "token")] = a.value("logprob", json(nullptr));
    out["top_logprobs"].push_back(std::move(top));
    out["text_offset"].push_back(offset_);
    offset_ += code_points(token);
  }
  return out;
}

json LegacyLogprobs::take(const json& entries) { return convert(entries); }

void LegacyLogprobs::append(const json& entries) {
  json part = convert(entries);
  for (const char* key : {"tokens", "token_logprobs", "top_logprobs", "text_offset"})
    for (json& v : part[key]) all_[key].push_back(std::move(v));
}

// ---- streaming ---------------------------------------------------------------------------

std::string ChunkEncoder::sse(const json& j) { return "data: " + dump(j) + "\n\n"; }

std::string ChunkEncoder::error_event(const json& error) { return sse({{"error", error}}); }

void ChunkEncoder::on_start(const json& ev) {
  head_ = {{"id", ev.value("id", json(""))},
           {"created", ev.value("created", json(0))},
           {"model", ev.value("model", json(""))}};
}

json ChunkEncoder::chunk(json choices) const {
  json c = {{"id", head_.value("id", json(""))},
            {"object", options_.api == Api::kChat ? "chat.completion.chunk" : "text_completion"},
            {"created", head_.value("created", json(0))},
            {"model", head_.value("model", json(""))},
            {"system_fingerprint", kSystemFingerprint},
            {"choices", std::move(choices)}};
  // OpenAI marks every chunk's usage null when the final usage chunk is coming.
  if (options_.include_usage) c["usage"] = nullptr;
  return c;
}

std::string ChunkEncoder::role_chunk_once(int choice) {
  if (options_.api != Api::kChat || role_sent_[choice]) return {};
  role_sent_[choice] = true;
  return sse(chunk(json::array({{{"index", choice},
                                 {"delta", {{"role", "assistant"}, {"content", ""}}},
                                 {"logprobs", nullptr},
                                 {"finish_reason", nullptr}}})));
}

std::string ChunkEncoder::on_delta(const json& ev) {
  int i = choice_index(ev);
  std::string out = role_chunk_once(i);
  const json* logprobs = options_.logprobs ? array_field(ev, "logprobs") : nullptr;
  json c;
  if (options_.api == Api::kChat) {
    json delta = json::object();
    if (auto it = ev.find("content"); it != ev.end() && it->is_string()) delta["content"] = *it;
    if (auto it = ev.find("reasoning_content"); it != ev.end() && it->is_string())
      delta["reasoning_content"] = *it;
    if (const json* calls = array_field(ev, "tool_calls")) delta["tool_calls"] = *calls;
    if (delta.empty() && !logprobs) return out;
    c = {{"index", i},
         {"delta", std::move(delta)},
         {"logprobs", logprobs ? json{{"content", *logprobs}} : json(nullptr)},
         {"finish_reason", nullptr}};
  } else {
    std::string text = text_of(ev, "content");
    if (text.empty() && !logprobs) return out;
    c = {{"index", i},
         {"text", std::move(text)},
         {"logprobs", logprobs ? legacy_[i].take(*logprobs) : json(nullptr)},
         {"finish_reason", nullptr}};
  }
  return out + sse(chunk(json::array({std::move(c)})));
}

std::string ChunkEncoder::on_finish(const json& ev) {
  int i = choice_index(ev);
  std::string out = role_chunk_once(i);
  std::string reason = text_of(ev, "finish_reason");
  if (failed(reason)) return out + error_event(choice_error(ev));
  json c = {{"index", i}, {"logprobs", nullptr}, {"finish_reason", reason}};
  if (options_.api == Api::kChat)
    c["delta"] = json::object();
  else
    c["text"] = "";
  return out + sse(chunk(json::array({std::move(c)})));
}

std::string ChunkEncoder::on_done(const json& ev) {
  std::string out;
  if (options_.include_usage) {
    json c = chunk(json::array());
    c["usage"] = ev.value("usage", json(nullptr));
    out = sse(c);
  }
  return out + done_marker();
}

// ---- non-streaming -----------------------------------------------------------------------

ResponseAssembler::Choice& ResponseAssembler::choice(const json& ev) {
  return choices_[choice_index(ev)];
}

void ResponseAssembler::on_delta(const json& ev) {
  Choice& c = choice(ev);
  c.content += text_of(ev, "content");
  c.reasoning += text_of(ev, "reasoning_content");
  if (const json* calls = array_field(ev, "tool_calls")) {
    for (const json& call : *calls) {
      if (!call.is_object()) continue;
      ToolCall& t = c.tool_calls[call.value("index", 0)];
      if (auto id = text_of(call, "id"); !id.empty()) t.id = id;
      if (auto type = text_of(call, "type"); !type.empty()) t.type = type;
      if (auto it = call.find("function"); it != call.end() && it->is_object()) {
        if (auto name = text_of(*it, "name"); !name.empty()) t.name = name;
        t.arguments += text_of(*it, "arguments");
      }
    }
  }
  if (const json* logprobs = array_field(ev, "logprobs")) {
    if (options_.api == Api::kChat)
      for (const json& e : *logprobs) c.logprobs.push_back(e);
    else
      c.legacy.append(*logprobs);
  }
}

void ResponseAssembler::on_finish(const json& ev) {
  Choice& c = choice(ev);
  c.finish_reason = text_of(ev, "finish_reason");
  if (failed(c.finish_reason)) c.error = choice_error(ev);
}

json ResponseAssembler::failure() const {
  for (const auto& [index, c] : choices_)
    if (!c.error.is_null()) return c.error;
  return nullptr;
}

json ResponseAssembler::chat_choice(int index, const Choice& c) const {
  json message = {{"role", "assistant"}};
  // OpenAI: content is null when the answer is only tool calls.
  message["content"] = c.content.empty() && !c.tool_calls.empty() ? json(nullptr) : json(c.content);
  if (!c.reasoning.empty()) message["reasoning_content"] = c.reasoning;
  if (!c.tool_calls.empty()) {
    json calls = json::array();
    for (const auto& [k, t] : c.tool_calls)
      calls.push_back({{"id", t.id},
                       {"type", t.type},
                       {"function", {{"name", t.name}, {"arguments", t.arguments}}}});
    message["tool_calls"] = std::move(calls);
  }
  return {{"index", index},
          {"message", std::move(message)},
          {"logprobs", options_.logprobs ? json{{"content", c.logprobs}} : json(nullptr)},
          {"finish_reason", c.finish_reason.empty() ? json(nullptr) : json(c.finish_reason)}};
}

json ResponseAssembler::completion_choice(int index, const Choice& c) const {
  return {{"index", index},
          {"text", c.content},
          {"logprobs", options_.logprobs ? c.legacy.all() : json(nullptr)},
          {"finish_reason", c.finish_reason.empty() ? json(nullptr) : json(c.finish_reason)}};
}

json ResponseAssembler::result(const json& usage) const {
  bool chat = options_.api == Api::kChat;
  json choices = json::array();
  for (const auto& [index, c] : choices_)
    choices.push_back(chat ? chat_choice(index, c) : completion_choice(index, c));
  return {{"id", head_.value("id", json(""))},
          {"object", chat ? "chat.completion" : "text_completion"},
          {"created", head_.value("created", json(0))},
          {"model", head_.value("model", json(""))},
          {"system_fingerprint", kSystemFingerprint},
          {"choices", std::move(choices)},
          {"usage", usage}};
}

}  // namespace zen::http
