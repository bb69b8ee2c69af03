#include "c_api.h"

#include <cstdlib>
#include <cstring>

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
  return copy(error_json(ApiError::invalid("", "embeddings are not implemented by this server")));
}

char* metrics(zen_engine* e) {
  return answer([&] { return service(e).metrics(); });
}

void free_string(char* s) { std::free(s); }

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
                                       status};
  return &table;
}

zen_engine* engine_handle(EngineService& s) { return reinterpret_cast<zen_engine*>(&s); }

}  // namespace zen::serving
