// Which endpoint a request line names. Paths match exactly (after dropping the query and an
// absolute-form scheme://authority); a known path with the wrong method is 405, not 404.
#pragma once

#include <string>
#include <string_view>

namespace zen::http {

enum class Endpoint {
  kChatCompletions,
  kCompletions,
  kEmbeddings,
  kRerank,
  kModels,
  kModel,  // /v1/models/{id}
  kTokenize,
  kDetokenize,
  kHealth,
  kReady,
  kMetrics,
};

struct Route {
  enum class Outcome { kFound, kNotFound, kWrongMethod } outcome = Outcome::kNotFound;
  Endpoint endpoint = Endpoint::kHealth;
  std::string model_id;    // kModel: the percent-decoded id
  const char* allow = "";  // kWrongMethod: the method the path takes
};

// The path of a request target: "/p?q" -> "/p", "http://h:1/p" -> "/p". Empty when the target
// is not origin-form or absolute-form.
std::string_view target_path(std::string_view target);

Route route(std::string_view method, std::string_view target);

// Endpoints that need the API key when one is configured (all but liveness and readiness).
bool needs_key(Endpoint e);
// Endpoints whose body is a JSON request.
bool takes_body(Endpoint e);

}  // namespace zen::http
