#include "endpoints.h"

#include <zen/task.hpp>
#include <zen/utf8.hpp>

#include <string_view>

namespace zen::http {
namespace {

using nlohmann::json;

Reply health() { return json_reply(200, {{"status", "ok"}}); }

Reply ready(const EngineApi& api) {
  std::optional<std::string> status = api.status();
  if (!status) {
    // A host without status(): it answers list_models, so it is up.
    api.list_models();
    return json_reply(200, {{"ready", true}});
  }
  json s = json::parse(*status, nullptr, false);
  if (!s.is_object()) throw EngineUnavailable("the engine's status is not a JSON object");
  bool is_ready = s.value("ready", false) == true;
  Reply r = json_reply(is_ready ? 200 : 503, s);
  if (!is_ready) r.headers.emplace_back("Retry-After", "1");
  return r;
}

Reply metrics(const EngineApi& api) {
  Reply r;
  r.content_type = "text/plain; version=0.0.4; charset=utf-8";
  r.body = api.metrics();
  return r;
}

// The engine's model list, each model with the endpoints it serves ("capabilities", from the
// task kinds the engine reports for it; absent with a host before typed tasks).
json model_list(const EngineApi& api) {
  json list = json::parse(api.list_models(), nullptr, false);
  if (!list.is_object()) throw EngineUnavailable("the engine's model list is not a JSON object");
  if (!api.has_tasks() || !list.contains("data") || !list["data"].is_array()) return list;
  for (json& m : list["data"]) {
    if (!m.is_object() || !m.contains("id") || !m["id"].is_string()) continue;
    const uint32_t kinds = api.task_kinds(m["id"].get<std::string>());
    json caps = json::array();
    if (kinds & ZEN_TASK_GENERATE) caps.insert(caps.end(), {"completion", "chat"});
    if (kinds & ZEN_TASK_EMBED) caps.push_back("embeddings");
    if (kinds & ZEN_TASK_RERANK) caps.push_back("rerank");
    m["capabilities"] = std::move(caps);
  }
  return list;
}

Reply models(const EngineApi& api) { return json_reply(200, model_list(api)); }

Reply model(const EngineApi& api, const std::string& id) {
  json list = model_list(api);
  if (list.is_object() && list.contains("data") && list["data"].is_array())
    for (const json& m : list["data"])
      if (m.is_object() && m.value("id", json()) == json(id)) return json_reply(200, m);
  return error_reply(404, "the model '" + id + "' does not exist", "not_found_error", "model",
                     "model_not_found");
}

}  // namespace

Reply answer_now(const Route& route, const EngineApi& api) {
  switch (route.endpoint) {
    case Endpoint::kHealth:
      return health();
    case Endpoint::kReady:
      return ready(api);
    case Endpoint::kMetrics:
      return metrics(api);
    case Endpoint::kModels:
      return models(api);
    case Endpoint::kModel:
      return model(api, route.model_id);
    default:
      break;
  }
  return error_reply(500, "this endpoint does not answer at once", "server_error");
}

Reply tokenize_reply(const frontend::TokenizeBody& body, const zen_tokenize_result* r,
                     const zen_task_error* e) {
  if (!r) return task_error_reply(e ? task::TaskError::copy_of(*e) : task::TaskError{});
  if (body.detokenize)
    return json_reply(200, {{"content", utf8::to_valid(std::string_view(
                                            r->text.ptr ? r->text.ptr : "", r->text.len))}});
  json tokens = json::array();
  for (uint32_t i = 0; r->tokens && i < r->n_tokens; ++i) {
    if (!body.with_pieces) {
      tokens.push_back(r->tokens[i]);
      continue;
    }
    const std::string piece = r->pieces ? task::copy(r->pieces[i]) : std::string();
    json shown = piece;
    if (!utf8::is_valid(piece)) {  // not text: show the bytes
      shown = json::array();
      for (unsigned char c : piece) shown.push_back(static_cast<int>(c));
    }
    tokens.push_back({{"id", r->tokens[i]}, {"piece", std::move(shown)}});
  }
  return json_reply(200, {{"tokens", std::move(tokens)}});
}

}  // namespace zen::http
