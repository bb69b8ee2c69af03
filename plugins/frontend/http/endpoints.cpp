#include "endpoints.h"

#include "request_body.h"

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

Reply models(const EngineApi& api) {
  json list = json::parse(api.list_models(), nullptr, false);
  if (!list.is_object()) throw EngineUnavailable("the engine's model list is not a JSON object");
  return json_reply(200, list);
}

Reply model(const EngineApi& api, const std::string& id) {
  json list = json::parse(api.list_models(), nullptr, false);
  if (list.is_object() && list.contains("data") && list["data"].is_array())
    for (const json& m : list["data"])
      if (m.is_object() && m.value("id", json()) == json(id)) return json_reply(200, m);
  return error_reply(404, "the model '" + id + "' does not exist", "not_found_error", "model",
                     "model_not_found");
}

// tokenize/detokenize: the body goes through as is; the host's answer or error comes back.
template <class Call>
Reply pass_through(std::string_view body, Call&& call) {
  auto parsed = parse_json_object(body);
  if (auto* reply = std::get_if<Reply>(&parsed)) return std::move(*reply);
  json answer = json::parse(call(dump(std::get<json>(parsed))), nullptr, false);
  if (!answer.is_object()) throw EngineUnavailable("the engine's answer is not a JSON object");
  if (answer.contains("error")) return host_error_reply(answer, 400);
  return json_reply(200, answer);
}

}  // namespace

Reply answer_now(const Route& route, std::string_view body, const EngineApi& api) {
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
    case Endpoint::kTokenize:
      return pass_through(body, [&](const std::string& j) { return api.tokenize(j); });
    case Endpoint::kDetokenize:
      return pass_through(body, [&](const std::string& j) { return api.detokenize(j); });
    default:
      break;
  }
  return error_reply(500, "this endpoint does not answer at once", "server_error");
}

}  // namespace zen::http
