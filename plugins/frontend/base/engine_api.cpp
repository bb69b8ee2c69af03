#include "engine_api.h"

namespace zen::http {

EngineApi::EngineApi(const zen_engine_api* api, zen_engine* engine) : api_(api), engine_(engine) {
  if (!api_ || !api_->cancel || !api_->free_string)
    throw std::invalid_argument("the host's engine API table lacks cancel/free_string");
}

std::string EngineApi::take(char* s, const char* what) const {
  if (!s) throw EngineUnavailable(std::string("the engine returned no answer to ") + what);
  std::string out(s);
  api_->free_string(s);
  return out;
}

std::string EngineApi::list_models() const {
  if (!api_->list_models) throw EngineUnavailable("the engine cannot list models");
  return take(api_->list_models(engine_), "list_models");
}

std::string EngineApi::metrics() const {
  if (!api_->metrics) throw EngineUnavailable("the engine offers no metrics");
  return take(api_->metrics(engine_), "metrics");
}

std::optional<std::string> EngineApi::status() const {
  if (!ZEN_HAS_MEMBER(api_, zen_engine_api, status) || !api_->status) return std::nullopt;
  return take(api_->status(engine_), "status");
}

void EngineApi::cancel(uint64_t id) const { api_->cancel(engine_, id); }

bool EngineApi::has_tasks() const {
  return ZEN_HAS_MEMBER(api_, zen_engine_api, submit_embed) && api_->task_kinds &&
         api_->submit_embed;
}

bool EngineApi::has_generate() const {
  return ZEN_HAS_MEMBER(api_, zen_engine_api, submit_generate) && api_->submit_generate;
}

bool EngineApi::has_tokenize() const {
  return ZEN_HAS_MEMBER(api_, zen_engine_api, submit_tokenize) && api_->submit_tokenize;
}

uint32_t EngineApi::task_kinds(const std::string& model) const {
  return has_tasks() ? api_->task_kinds(engine_, model.c_str()) : 0;
}

zen_status EngineApi::submit_embed(const zen_embed_request& request, zen_embed_cb cb, void* user,
                                   uint64_t* id) const {
  if (!has_tasks()) return ZEN_ERR_UNSUPPORTED;
  return api_->submit_embed(engine_, &request, cb, user, id);
}

zen_status EngineApi::submit_rerank(const zen_rerank_request& request, zen_rerank_cb cb, void* user,
                                    uint64_t* id) const {
  if (!has_tasks() || !ZEN_HAS_MEMBER(api_, zen_engine_api, submit_rerank) || !api_->submit_rerank)
    return ZEN_ERR_UNSUPPORTED;
  return api_->submit_rerank(engine_, &request, cb, user, id);
}

zen_status EngineApi::submit_generate(const zen_generate_request& request, zen_generate_cb cb,
                                      void* user, uint64_t* id) const {
  if (!has_generate()) return ZEN_ERR_UNSUPPORTED;
  return api_->submit_generate(engine_, &request, cb, user, id);
}

zen_status EngineApi::submit_tokenize(const zen_tokenize_request& request, zen_tokenize_cb cb,
                                      void* user, uint64_t* id) const {
  if (!has_tokenize()) return ZEN_ERR_UNSUPPORTED;
  return api_->submit_tokenize(engine_, &request, cb, user, id);
}

}  // namespace zen::http
