// A complete (non-streaming) HTTP answer, and the OpenAI-shaped error bodies every failure
// uses: {"error": {"message", "type", "param", "code"}}. The one mapping of the engine's task
// errors (zen_task_error) to HTTP statuses and OpenAI error types lives here.
#pragma once

#include <zen/task.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

#include "request_refused.h"

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

// The type OpenAI uses for a status of the server's own (limits, routing, the key).
std::string error_type_for(unsigned status);

// ---- the engine's task errors -------------------------------------------------------------
// ZEN_ERR_INVALID_ARG 400 invalid_request_error, ZEN_ERR_NOT_FOUND 404 not_found_error,
// ZEN_ERR_BUSY 429 server_overloaded, ZEN_ERR_UNAVAILABLE and ZEN_ERR_CANCELLED 503
// service_unavailable, anything else 500 server_error.
unsigned task_error_status(zen_status s);
std::string task_error_type(zen_status s);
// Its error object: param = member, code = code (null when empty); an empty message is
// `fallback`.
nlohmann::json task_error_object(
    const task::TaskError& e, const std::string& fallback = "the engine failed without a message");
// Its reply; 429 and 503 carry Retry-After (retry_after rounded up, at least 1 second).
Reply task_error_reply(const task::TaskError& e,
                       const std::string& fallback = "the engine failed without a message");

// A request the frontend refused itself (RequestRefused): its status, invalid_request_error.
Reply refused_reply(const frontend::RequestRefused& e);

}  // namespace zen::http
