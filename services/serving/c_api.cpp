#include "c_api.h"

#include <cstdlib>
#include <cstring>
#include <vector>

#include "api_error.h"

namespace zen::serving {
namespace {

EngineService& service(zen_engine* e) {
  if (!e) throw ApiError::internal("the engine handle is NULL");
  return *reinterpret_cast<EngineService*>(e);
}

template <class J>
std::string dump(const J& j) {
  return j.dump(-1, ' ', false, J::error_handler_t::replace);
}

char* copy(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out) std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

std::string error_json(const ApiError& e) { return dump(e.to_json()); }

// Runs f, turning any exception into the JSON error shape.
template <class F>
char* answer(F&& f) {
  try {
    return copy(f());
  } catch (const ApiError& e) {
    return copy(error_json(e));
  } catch (const std::exception& e) {
    return copy(error_json(ApiError::internal(e.what())));
  } catch (...) {
    return copy(error_json(ApiError::internal("unknown error")));
  }
}

char* list_models(zen_engine* e) {
  return answer([&] { return dump(service(e).list_models()); });
}

char* status(zen_engine* e) {
  return answer([&] { return dump(service(e).status()); });
}

zen_status status_of(const ApiError& e) {
  switch (e.status()) {
    case 404:
      return ZEN_ERR_NOT_FOUND;
    case 429:
    case 503:
      return ZEN_ERR_UNSUPPORTED;
    case 500:
      return ZEN_ERR_INTERNAL;
    default:
      return ZEN_ERR_INVALID_ARG;
  }
}

zen_status submit(zen_engine* e, const char* request_json, zen_event_cb cb, void* user,
                  uint64_t* out_id) {
  if (!e || !request_json || !cb || !out_id) return ZEN_ERR_INVALID_ARG;
  *out_id = 0;
  auto fail = [&](const ApiError& err) {
    Json event = {{"type", "error"}};
    const nlohmann::json body = err.to_json();  // named: items() does not keep it alive
    for (const auto& [k, v] : body.items()) event[k] = v;
    cb(user, dump(event).c_str(), 1);
    return status_of(err);
  };
  try {
    EmitFn emit = [cb, user](const Json& event, bool last) {
      cb(user, dump(event).c_str(), last ? 1 : 0);
    };
    *out_id = service(e).submit(request_json, std::move(emit));
    return ZEN_OK;
  } catch (const ApiError& err) {
    return fail(err);
  } catch (const std::exception& ex) {
    return fail(ApiError::internal(ex.what()));
  } catch (...) {
    return fail(ApiError::internal("unknown error"));
  }
}

zen_status cancel(zen_engine* e, uint64_t id) {
  if (!e) return ZEN_ERR_INVALID_ARG;
  try {
    service(e).cancel(id);
    return ZEN_OK;
  } catch (...) {
    return ZEN_ERR_INTERNAL;
  }
}

char* tokenize(zen_engine* e, const char* request_json) {
  return answer([&] { return dump(service(e).tokenize(request_json ? request_json : "")); });
}

char* detokenize(zen_engine* e, const char* request_json) {
  return answer([&] { return dump(service(e).detokenize(request_json ? request_json : "")); });
}

char* embed(zen_engine*, const char*) {
  return copy(error_json(ApiError::invalid(
      "", "embeddings go through the typed embed task (zen_engine_api.submit_embed, ABI 1.4)")));
}

char* metrics(zen_engine* e) {
  return answer([&] { return service(e).metrics(); });
}

void free_string(char* s) { std::free(s); }

uint32_t task_kinds(zen_engine* e, const char* model) {
  try {
    return service(e).task_kinds(model ? model : "");
  } catch (...) {
    return 0;
  }
}

// Hands an answer or an error to the caller's callback as the typed structs of zen/task.h.
void answer_embed(zen_embed_cb cb, void* user, const Embeddings* r, const ApiError* err) {
  if (r) {
    const uint32_t n_embd = r->vectors.empty() ? 0 : static_cast<uint32_t>(r->vectors[0].size());
    std::vector<float> flat;
    flat.reserve(r->vectors.size() * n_embd);
    for (const std::vector<float>& v : r->vectors) flat.insert(flat.end(), v.begin(), v.end());
    const zen_embed_result res{ZEN_HDR_INIT(zen_embed_result),
                               static_cast<uint32_t>(r->vectors.size()), n_embd, flat.data(),
                               r->prompt_tokens};
    return cb(user, &res, nullptr);
  }
  const zen_task_error te{ZEN_HDR_INIT(zen_task_error), status_of(*err), err->what(),
                          err->param().empty() ? nullptr : err->param().c_str()};
  cb(user, nullptr, &te);
}

zen_status submit_embed(zen_engine* e, const zen_embed_request* req, zen_embed_cb cb, void* user,
                        uint64_t* out_id) {
  if (!cb) return ZEN_ERR_INVALID_ARG;
  if (out_id) *out_id = 0;
  try {
    if (!e || !req) throw ApiError::invalid("", "no engine or no request");
    if (!ZEN_HAS_MEMBER(req, zen_embed_request, normalize) || (req->n_inputs && !req->inputs))
      throw ApiError::invalid("input", "the embedding request is incomplete");
    EmbedRequest r;
    r.model = req->model ? req->model : "";
    r.normalize = req->normalize != 0;
    for (uint32_t i = 0; i < req->n_inputs; ++i) {
      const zen_embed_input& in = req->inputs[i];
      EmbedRequest::Input& out = r.inputs.emplace_back();
      out.is_text = in.text != nullptr;
      if (out.is_text)
        out.text.assign(in.text, in.text_len);
      else if (in.n_tokens)
        out.tokens.assign(in.tokens, in.tokens + in.n_tokens);
    }
    service(e).embed(std::move(r), [cb, user](const Embeddings* res, const ApiError* err) {
      answer_embed(cb, user, res, err);
    });
    return ZEN_OK;
  } catch (const ApiError& err) {
    answer_embed(cb, user, nullptr, &err);
    return status_of(err);
  } catch (const std::exception& ex) {
    const ApiError err = ApiError::internal(ex.what());
    answer_embed(cb, user, nullptr, &err);
    return ZEN_ERR_INTERNAL;
  }
}

}  // namespace

const zen_engine_api* engine_api() {
  static const zen_engine_api table = {ZEN_HDR_INIT(zen_engine_api),
                                       list_models,
                                       submit,
                                       cancel,
                                       tokenize,
                                       detokenize,
                                       embed,
                                       metrics,
                                       free_string,
                                       status,
                                       task_kinds,
                                       submit_embed};
  return &table;
}

zen_engine* engine_handle(EngineService& s) { return reinterpret_cast<zen_engine*>(&s); }

}  // namespace zen::serving
