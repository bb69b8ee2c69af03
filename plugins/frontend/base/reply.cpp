#include "reply.h"

#include <algorithm>
#include <cmath>

namespace zen::http {

using nlohmann::json;

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

Reply json_reply(unsigned status, const json& body) {
  Reply r;
  r.status = status;
  r.body = dump(body);
  return r;
}

std::string error_type_for(unsigned status) {
  switch (status) {
    case 401:
      return "invalid_request_error";
    case 404:
      return "not_found_error";
    case 429:
      return "server_overloaded";
    case 503:
      return "server_overloaded";
    default:
      return status >= 500 ? "server_error" : "invalid_request_error";
  }
}

json error_object(const std::string& message, const std::string& type, const std::string& param,
                  const std::string& code) {
  return {{"message", message},
          {"type", type},
          {"param", param.empty() ? json(nullptr) : json(param)},
          {"code", code.empty() ? json(nullptr) : json(code)}};
}

Reply error_reply(unsigned status, const std::string& message, const std::string& type,
                  const std::string& param, const std::string& code) {
  return json_reply(status, {{"error", error_object(message, type, param, code)}});
}

unsigned task_error_status(zen_status s) {
  switch (s) {
    case ZEN_ERR_INVALID_ARG:
      return 400;
    case ZEN_ERR_NOT_FOUND:
      return 404;
    case ZEN_ERR_BUSY:
      return 429;
    case ZEN_ERR_UNAVAILABLE:
    case ZEN_ERR_CANCELLED:
      return 503;
    default:
      return 500;
  }
}

std::string task_error_type(zen_status s) {
  const unsigned status = task_error_status(s);
  // The engine's 503s are a model loading or the server stopping, not an overload.
  return status == 503 ? "service_unavailable" : error_type_for(status);
}

json task_error_object(const task::TaskError& e, const std::string& fallback) {
  return error_object(e.message.empty() ? fallback : e.message, task_error_type(e.status), e.member,
                      e.code);
}

Reply task_error_reply(const task::TaskError& e, const std::string& fallback) {
  const unsigned status = task_error_status(e.status);
  Reply r = json_reply(status, {{"error", task_error_object(e, fallback)}});
  if (status == 429 || status == 503) {
    // A client needs a whole number of seconds; "come back at once" would be a busy loop.
    const double wait = std::isfinite(e.retry_after) ? std::min(e.retry_after, 86400.0) : 0.0;
    const int64_t seconds = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(wait)));
    r.headers.emplace_back("Retry-After", std::to_string(seconds));
  }
  return r;
}

Reply refused_reply(const frontend::RequestRefused& e) {
  return error_reply(e.status(), e.what(), "invalid_request_error", e.param(), e.code());
}

}  // namespace zen::http
