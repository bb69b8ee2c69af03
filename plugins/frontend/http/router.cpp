#include "router.h"

#include <array>

namespace zen::http {
namespace {

struct Fixed {
  std::string_view path;
  std::string_view method;
  Endpoint endpoint;
};

constexpr std::array<Fixed, 13> kFixed = {{
    {"/v1/chat/completions", "POST", Endpoint::kChatCompletions},
    {"/v1/completions", "POST", Endpoint::kCompletions},
    {"/v1/embeddings", "POST", Endpoint::kEmbeddings},
    // The Cohere/Jina shape, at the paths llama-server and vLLM serve it.
    {"/v1/rerank", "POST", Endpoint::kRerank},
    {"/rerank", "POST", Endpoint::kRerank},
    {"/v1/reranking", "POST", Endpoint::kRerank},
    {"/reranking", "POST", Endpoint::kRerank},
    {"/v1/models", "GET", Endpoint::kModels},
    {"/tokenize", "POST", Endpoint::kTokenize},
    {"/detokenize", "POST", Endpoint::kDetokenize},
    {"/health", "GET", Endpoint::kHealth},
    {"/ready", "GET", Endpoint::kReady},
    {"/metrics", "GET", Endpoint::kMetrics},
}};

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX decoding; a malformed escape is kept literally (the id then simply matches nothing).
std::string percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

Route wrong_method(Endpoint e, const char* allow) {
  Route r;
  r.outcome = Route::Outcome::kWrongMethod;
  r.endpoint = e;
  r.allow = allow;
  return r;
}

}  // namespace

std::string_view target_path(std::string_view target) {
  if (auto scheme = target.find("://");
      scheme != std::string_view::npos && target.substr(0, 1) != "/") {
    auto slash = target.find('/', scheme + 3);
    if (slash == std::string_view::npos) return "/";
    target = target.substr(slash);
  }
  if (target.empty() || target.front() != '/') return {};
  if (auto q = target.find_first_of("?#"); q != std::string_view::npos)
    target = target.substr(0, q);
  return target;
}

Route route(std::string_view method, std::string_view target) {
  std::string_view path = target_path(target);
  for (const Fixed& f : kFixed) {
    if (path != f.path) continue;
    if (method != f.method) return wrong_method(f.endpoint, f.method.data());
    Route r;
    r.outcome = Route::Outcome::kFound;
    r.endpoint = f.endpoint;
    return r;
  }
  constexpr std::string_view kModelPrefix = "/v1/models/";
  if (path.size() > kModelPrefix.size() && path.substr(0, kModelPrefix.size()) == kModelPrefix) {
    if (method != "GET") return wrong_method(Endpoint::kModel, "GET");
    Route r;
    r.outcome = Route::Outcome::kFound;
    r.endpoint = Endpoint::kModel;
    r.model_id = percent_decode(path.substr(kModelPrefix.size()));
    return r;
  }
  return {};
}

bool needs_key(Endpoint e) { return e != Endpoint::kHealth && e != Endpoint::kReady; }

bool takes_body(Endpoint e) {
  return e == Endpoint::kChatCompletions || e == Endpoint::kCompletions ||
         e == Endpoint::kEmbeddings || e == Endpoint::kRerank || e == Endpoint::kTokenize ||
         e == Endpoint::kDetokenize;
}

}  // namespace zen::http
