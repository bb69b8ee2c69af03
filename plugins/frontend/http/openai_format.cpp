#include "openai_format.h"

#include <cmath>
#include <zen/utf8.hpp>

#include "reply.h"

namespace zen::http {

using nlohmann::json;
using task::GenerateEvent;
using task::LogprobEntry;
using task::TokenLogprob;

const char* const kSystemFingerprint = "zen-engine-http-0.1.0";

namespace {

// Code points in UTF-8 text: the unit of OpenAI's text_offset (Python string indices).
uint64_t code_points(const std::string& s) {
  uint64_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// JSON has no -Infinity: a token the sampler ruled out shows OpenAI's floor instead.
double shown_logprob(float logprob) {
  return std::isfinite(logprob) ? static_cast<double>(logprob) : -9999.0;
}

json token_json(const TokenLogprob& t) {
  json bytes = json::array();
  for (unsigned char c : t.piece) bytes.push_back(static_cast<int>(c));
  return {{"token", utf8::to_valid(t.piece)},
          {"logprob", shown_logprob(t.logprob)},
          {"bytes", std::move(bytes)}};
}

// A call's first piece carries its id, type and name; later pieces only add to its arguments.
// Pieces of one call that follow each other become one entry, as clients concatenate anyway.
json tool_call_deltas(const std::vector<task::ToolCallDelta>& calls) {
  json out = json::array();
  for (const task::ToolCallDelta& d : calls) {
    if (!d.id.empty() || !d.name.empty()) {
      out.push_back({{"index", d.index},
                     {"id", d.id},
                     {"type", "function"},
                     {"function", {{"name", d.name}, {"arguments", d.arguments}}}});
    } else if (!out.empty() && out.back()["index"] == d.index) {
      out.back()["function"]["arguments"].get_ref<std::string&>() += d.arguments;
    } else {
      out.push_back({{"index", d.index}, {"function", {{"arguments", d.arguments}}}});
    }
  }
  return out;
}

bool failed(zen_finish_reason r) { return r == ZEN_FINISH_ERROR || r == ZEN_FINISH_CANCELLED; }

json choice_error(const GenerateEvent& ev) {
  if (ev.finish_reason == ZEN_FINISH_CANCELLED)
    return error_object("the request was cancelled", "server_error", "", "cancelled");
  return error_object(
      ev.error && !ev.error->message.empty() ? ev.error->message : "generation failed",
      "server_error");
}

}  // namespace

GenerationOptions GenerationOptions::of(Api api, const frontend::OpenAiRequest& r) {
  return GenerationOptions{api, r.stream, r.include_usage, r.request.logprobs, r.request.tag};
}

json chat_logprobs(const std::vector<LogprobEntry>& entries) {
  json out = json::array();
  for (const LogprobEntry& e : entries) {
    json entry = token_json(e.chosen);
    json top = json::array();
    for (const TokenLogprob& t : e.top) top.push_back(token_json(t));
    entry["top_logprobs"] = std::move(top);
    out.push_back(std::move(entry));
  }
  return out;
}

json usage_of(const GenerateEvent& done) {
  return {{"prompt_tokens", done.prompt_tokens},
          {"completion_tokens", done.completion_tokens},
          {"total_tokens", done.prompt_tokens + done.completion_tokens},
          {"prompt_tokens_details", {{"cached_tokens", done.cached_tokens}}}};
}

// ---- legacy completion logprobs ----------------------------------------------------------

json LegacyLogprobs::convert(const std::vector<LogprobEntry>& entries) {
  json out = {{"tokens", json::array()},
              {"token_logprobs", json::array()},
              {"top_logprobs", json::array()},
              {"text_offset", json::array()}};
  for (const LogprobEntry& e : entries) {
    std::string token = utf8::to_valid(e.chosen.piece);
    out["token_logprobs"].push_back(shown_logprob(e.chosen.logprob));
    json top = json::object();
    for (const TokenLogprob& t : e.top) top[utf8::to_valid(t.piece)] = shown_logprob(t.logprob);
    out["top_logprobs"].push_back(std::move(top));
    out["text_offset"].push_back(offset_);
    offset_ += code_points(token);
    out["tokens"].push_back(std::move(token));
  }
  return out;
}

json LegacyLogprobs::take(const std::vector<LogprobEntry>& entries) { return convert(entries); }

void LegacyLogprobs::append(const std::vector<LogprobEntry>& entries) {
  json part = convert(entries);
  for (const char* key : {"tokens", "token_logprobs", "top_logprobs", "text_offset"})
    for (json& v : part[key]) all_[key].push_back(std::move(v));
}

// ---- streaming ---------------------------------------------------------------------------

std::string ChunkEncoder::sse(const json& j) { return "data: " + dump(j) + "\n\n"; }

std::string ChunkEncoder::error_event(const json& error) { return sse({{"error", error}}); }

void ChunkEncoder::on_start(const GenerateEvent& ev) {
  created_ = ev.created;
  model_ = ev.model;
}

json ChunkEncoder::chunk(json choices) const {
  json c = {{"id", options_.id},
            {"object", options_.api == Api::kChat ? "chat.completion.chunk" : "text_completion"},
            {"created", created_},
            {"model", model_},
            {"system_fingerprint", kSystemFingerprint},
            {"choices", std::move(choices)}};
  // OpenAI marks every chunk's usage null when the final usage chunk is coming.
  if (options_.include_usage) c["usage"] = nullptr;
  return c;
}

std::string ChunkEncoder::role_chunk_once(uint32_t choice) {
  if (options_.api != Api::kChat || role_sent_[choice]) return {};
  role_sent_[choice] = true;
  return sse(chunk(json::array({{{"index", choice},
                                 {"delta", {{"role", "assistant"}, {"content", ""}}},
                                 {"logprobs", nullptr},
                                 {"finish_reason", nullptr}}})));
}

std::string ChunkEncoder::on_delta(const GenerateEvent& ev) {
  const uint32_t i = ev.choice;
  std::string out = role_chunk_once(i);
  const bool logprobs = options_.logprobs && !ev.logprobs.empty();
  json c;
  if (options_.api == Api::kChat) {
    json delta = json::object();
    if (!ev.content.empty()) delta["content"] = ev.content;
    if (!ev.reasoning.empty()) delta["reasoning_content"] = ev.reasoning;
    if (!ev.tool_calls.empty()) delta["tool_calls"] = tool_call_deltas(ev.tool_calls);
    if (delta.empty() && !logprobs) return out;
    c = {{"index", i},
         {"delta", std::move(delta)},
         {"logprobs", logprobs ? json{{"content", chat_logprobs(ev.logprobs)}} : json(nullptr)},
         {"finish_reason", nullptr}};
  } else {
    if (ev.content.empty() && !logprobs) return out;
    c = {{"index", i},
         {"text", ev.content},
         {"logprobs", logprobs ? legacy_[i].take(ev.logprobs) : json(nullptr)},
         {"finish_reason", nullptr}};
  }
  return out + sse(chunk(json::array({std::move(c)})));
}

std::string ChunkEncoder::on_finish(const GenerateEvent& ev) {
  const uint32_t i = ev.choice;
  std::string out = role_chunk_once(i);
  if (failed(ev.finish_reason)) return out + error_event(choice_error(ev));
  json c = {
      {"index", i}, {"logprobs", nullptr}, {"finish_reason", task::finish_name(ev.finish_reason)}};
  if (options_.api == Api::kChat)
    c["delta"] = json::object();
  else
    c["text"] = "";
  return out + sse(chunk(json::array({std::move(c)})));
}

std::string ChunkEncoder::on_done(const GenerateEvent& ev) {
  std::string out;
  if (options_.include_usage) {
    json c = chunk(json::array());
    c["usage"] = usage_of(ev);
    out = sse(c);
  }
  return out + done_marker();
}

// ---- non-streaming -----------------------------------------------------------------------

void ResponseAssembler::on_start(const GenerateEvent& ev) {
  created_ = ev.created;
  model_ = ev.model;
}

void ResponseAssembler::on_delta(const GenerateEvent& ev) {
  Choice& c = choices_[ev.choice];
  c.content += ev.content;
  c.reasoning += ev.reasoning;
  for (const task::ToolCallDelta& d : ev.tool_calls) {
    ToolCall& t = c.tool_calls[d.index];
    if (!d.id.empty()) t.id = d.id;
    if (!d.name.empty()) t.name = d.name;
    t.arguments += d.arguments;
  }
  if (ev.logprobs.empty()) return;
  if (options_.api == Api::kChat)
    for (json& e : chat_logprobs(ev.logprobs)) c.logprobs.push_back(std::move(e));
  else
    c.legacy.append(ev.logprobs);
}

void ResponseAssembler::on_finish(const GenerateEvent& ev) {
  Choice& c = choices_[ev.choice];
  c.finish_reason = task::finish_name(ev.finish_reason);
  if (failed(ev.finish_reason)) c.error = choice_error(ev);
}

json ResponseAssembler::failure() const {
  for (const auto& [index, c] : choices_)
    if (!c.error.is_null()) return c.error;
  return nullptr;
}

json ResponseAssembler::chat_choice(uint32_t index, const Choice& c) const {
  json message = {{"role", "assistant"}};
  // OpenAI: content is null when the answer is only tool calls.
  message["content"] = c.content.empty() && !c.tool_calls.empty() ? json(nullptr) : json(c.content);
  if (!c.reasoning.empty()) message["reasoning_content"] = c.reasoning;
  if (!c.tool_calls.empty()) {
    json calls = json::array();
    for (const auto& [k, t] : c.tool_calls)
      calls.push_back({{"id", t.id},
                       {"type", "function"},
                       {"function", {{"name", t.name}, {"arguments", t.arguments}}}});
    message["tool_calls"] = std::move(calls);
  }
  return {{"index", index},
          {"message", std::move(message)},
          {"logprobs", options_.logprobs ? json{{"content", c.logprobs}} : json(nullptr)},
          {"finish_reason", c.finish_reason.empty() ? json(nullptr) : json(c.finish_reason)}};
}

json ResponseAssembler::completion_choice(uint32_t index, const Choice& c) const {
  return {{"index", index},
          {"text", c.content},
          {"logprobs", options_.logprobs ? c.legacy.all() : json(nullptr)},
          {"finish_reason", c.finish_reason.empty() ? json(nullptr) : json(c.finish_reason)}};
}

json ResponseAssembler::result(const json& usage) const {
  const bool chat = options_.api == Api::kChat;
  json choices = json::array();
  for (const auto& [index, c] : choices_)
    choices.push_back(chat ? chat_choice(index, c) : completion_choice(index, c));
  return {{"id", options_.id},
          {"object", chat ? "chat.completion" : "text_completion"},
          {"created", created_},
          {"model", model_},
          {"system_fingerprint", kSystemFingerprint},
          {"choices", std::move(choices)},
          {"usage", usage}};
}

}  // namespace zen::http
