// POST /v1/rerank (also /rerank, /v1/reranking, /reranking) in the Cohere/Jina shape that
// llama-server and vLLM serve, over the engine's typed rerank task (zen/task.h):
//   {"model", "query", "documents": [string or {"text"}], "top_n"?, "return_documents"?,
//    "truncate"?}
// -> {"id", "object": "list", "model", "results": [{"index", "relevance_score", "document":
//    {"text"}}], "usage": {"prompt_tokens", "total_tokens"}}
// Results are sorted by relevance (highest first), cut to top_n; relevance_score is in [0, 1].
#pragma once

#include <zen/task.h>
#include <zen/task.hpp>

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "json_fields.h"
#include "reply.h"

namespace zen::http {

struct RerankBody {
  std::string model, query;
  std::vector<std::string> documents;
  uint32_t top_n = 0;  // 0: all
  bool return_documents = true;
  bool truncate = false;

  // The typed request; it points into this body, which must outlive it.
  struct Typed {
    std::vector<zen_str> documents;
    zen_rerank_request request{};
  };
  Typed typed() const;
};

// The request, or the 400 reply naming what is wrong with it.
std::variant<RerankBody, Reply> parse_rerank_body(const frontend::Json& body);

// The "results" array: sorted by relevance, cut to top_n, documents as asked.
nlohmann::json rerank_results(const RerankBody& body, const zen_rerank_result& result);

// The answer from the host's result or error (exactly one is set); id is the response's id.
Reply rerank_reply(const RerankBody& body, const std::string& id, const zen_rerank_result* result,
                   const zen_task_error* error);

}  // namespace zen::http
