#include "reply.h"

#include <algorithm>

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

Reply host_error_reply(const json& host_error, unsigned fallback) {
  unsigned status = fallback;
  if (auto it = host_error.find("status"); it != host_error.end() && it->is_number_integer()) {
    int64_t s = it->get<int64_t>();
    if (s >= 400 && s <= 599) status = static_cast<unsigned>(s);
  }
  json error = host_error.contains("error") && host_error["error"].is_object()
                   ? host_error["error"]
                   : error_object("the engine failed without a message", error_type_for(status));
  Reply r = json_reply(status, {{"error", error}});
  if (status == 429 || status == 503) {
    // The host may put the hint beside the error or inside it; a client needs a number.
    int64_t retry = 1;
    for (const json* j : std::initializer_list<const json*>{&host_error, &error})
      if (auto it = j->find("retry_after"); it != j->end() && it->is_number())
        retry = std::max<int64_t>(1, static_cast<int64_t>(it->get<double>() + 0.999));
    r.headers.emplace_back("Retry-After", std::to_string(retry));
  }
  return r;
}

}  // namespace zen::http
