// A complete (non-streaming) HTTP answer, and the OpenAI-shaped error bodies every failure
// uses: {"error": {"message", "type", "param", "code"}}.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace zen::http {

struct Reply {
  unsigned status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra ones (Retry-After, Allow)
};

// JSON text that never throws on invalid UTF-8 (replaced by U+FFFD).
std::string dump(const nlohmann::json& j);

Reply json_reply(unsigned status, const nlohmann::json& body);

// The OpenAI error object {"message", "type", "param", "code"}; param and code null when empty.
nlohmann::json error_object(const std::string& message,
                            const std::string& type = "invalid_request_error",
                            const std::string& param = "", const std::string& code = "");

// An error reply with error_object() as its "error".
Reply error_reply(unsigned status, const std::string& message,
                  const std::string& type = "invalid_request_error", const std::string& param = "",
                  const std::string& code = "");

// A host error object {"error": {...}, "status": N, "retry_after"?: s} as a reply: the status
// comes from the object (default `fallback`), "status" is stripped from the body, 429 and 503
// carry Retry-After.
Reply host_error_reply(const nlohmann::json& host_error, unsigned fallback = 500);

// The type OpenAI uses for a status when the host gave none.
std::string error_type_for(unsigned status);

}  // namespace zen::http
