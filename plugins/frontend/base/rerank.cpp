#include "rerank.h"

#include <algorithm>
#include <numeric>

namespace zen::http {
namespace {

using frontend::Json;
using nlohmann::json;

Reply bad(const std::string& message, const char* param) {
  return error_reply(400, message, "invalid_request_error", param);
}

}  // namespace

RerankBody::Typed RerankBody::typed() const {
  Typed t;
  for (const std::string& d : documents) t.documents.push_back(task::view(d));
  t.request.h = ZEN_HDR_INIT(zen_rerank_request);
  t.request.model = model.c_str();
  t.request.query = task::view(query);
  t.request.documents = t.documents.data();
  t.request.n_documents = static_cast<uint32_t>(t.documents.size());
  t.request.truncate = truncate ? 1 : 0;
  return t;
}

std::variant<RerankBody, Reply> parse_rerank_body(const Json& body) {
  RerankBody b;
  if (body.contains("model")) {
    if (!body["model"].is_string()) return bad("'model' must be a string", "model");
    b.model = body["model"].get<std::string>();
  }
  if (!body.contains("query") || !body["query"].is_string())
    return bad("'query' is required and must be a string", "query");
  b.query = body["query"].get<std::string>();
  if (!body.contains("documents") || !body["documents"].is_array() || body["documents"].empty())
    return bad("'documents' is required: a non-empty array of strings or {\"text\"} objects",
               "documents");
  for (const Json& d : body["documents"]) {
    if (d.is_string()) {
      b.documents.push_back(d.get<std::string>());
    } else if (d.is_object() && d.contains("text") && d["text"].is_string()) {
      b.documents.push_back(d["text"].get<std::string>());
    } else {
      return bad("each of 'documents' must be a string or an object with a string \"text\"",
                 "documents");
    }
  }
  if (body.contains("top_n")) {
    const Json& n = body["top_n"];
    if (!n.is_number_integer() || n.get<int64_t>() < 1)
      return bad("'top_n' must be a positive integer", "top_n");
    b.top_n = static_cast<uint32_t>(std::min<int64_t>(n.get<int64_t>(), b.documents.size()));
  }
  for (const char* key : {"return_documents", "truncate"}) {
    if (!body.contains(key)) continue;
    if (!body[key].is_boolean())
      return bad(std::string("'") + key + "' must be true or false", key);
    (std::string(key) == "truncate" ? b.truncate : b.return_documents) = body[key].get<bool>();
  }
  return b;
}

nlohmann::json rerank_results(const RerankBody& body, const zen_rerank_result& result) {
  const zen_rerank_result* r = &result;
  std::vector<uint32_t> order(r->n_scores);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return r->scores[a] > r->scores[b]; });
  if (body.top_n) order.resize(std::min<size_t>(body.top_n, order.size()));
  json results = json::array();
  for (uint32_t i : order) {
    json item = {{"index", i}, {"relevance_score", r->scores[i]}};
    if (body.return_documents && i < body.documents.size())
      item["document"] = {{"text", body.documents[i]}};
    results.push_back(std::move(item));
  }
  return results;
}

Reply rerank_reply(const RerankBody& body, const std::string& id, const zen_rerank_result* r,
                   const zen_task_error* e) {
  if (!r)
    return task_error_reply(e ? task::TaskError::copy_of(*e) : task::TaskError{},
                            "the reranking failed");
  return json_reply(
      200, {{"id", id},
            {"object", "list"},
            {"model", body.model},
            {"results", rerank_results(body, *r)},
            {"usage", {{"prompt_tokens", r->prompt_tokens}, {"total_tokens", r->prompt_tokens}}}});
}

}  // namespace zen::http
