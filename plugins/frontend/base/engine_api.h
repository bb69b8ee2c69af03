// C++ face of the host's engine API table (zen/frontend.h): host-allocated strings become
// std::string, a missing answer becomes an exception, typed tasks a host predates report
// ZEN_ERR_UNSUPPORTED without calling back. Thread-safe as the table is.
#pragma once

#include <zen/frontend.h>

#include <optional>
#include <stdexcept>
#include <string>

namespace zen::http {

// The host returned nothing where it owed an answer: a 500 for the client.
struct EngineUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class EngineApi {
 public:
  EngineApi(const zen_engine_api* api, zen_engine* engine);

  std::string list_models() const;
  std::string metrics() const;
  // status() arrived in a later minor version of the table: nullopt when the host lacks it.
  std::optional<std::string> status() const;

  // Typed tasks (zen/task.h): embeddings since ABI 1.4, generation and tokenizing since 1.5.
  bool has_tasks() const;
  bool has_generate() const;
  bool has_tokenize() const;
  // The zen_task_kind bits a model serves (0: unknown model, or a host without tasks).
  uint32_t task_kinds(const std::string& model) const;
  // Each returns ZEN_ERR_UNSUPPORTED, without calling cb, when the host lacks the task.
  zen_status submit_rerank(const zen_rerank_request& request, zen_rerank_cb cb, void* user,
                           uint64_t* id) const;
  zen_status submit_embed(const zen_embed_request& request, zen_embed_cb cb, void* user,
                          uint64_t* id) const;
  zen_status submit_generate(const zen_generate_request& request, zen_generate_cb cb, void* user,
                             uint64_t* id) const;
  zen_status submit_tokenize(const zen_tokenize_request& request, zen_tokenize_cb cb, void* user,
                             uint64_t* id) const;
  void cancel(uint64_t id) const;

 private:
  std::string take(char* s, const char* what) const;

  const zen_engine_api* api_;
  zen_engine* engine_;
};

}  // namespace zen::http
