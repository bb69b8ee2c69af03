// The errors a request can end with, shaped as the frontends send them to clients (OpenAI's
// error object plus the HTTP status to use): {"error": {"message", "type", "param", "code"},
// "status": N}, and "retry_after" (seconds) when the client should come back later.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace zen::serving {

class ApiError : public std::runtime_error {
 public:
  ApiError(int status, std::string type, const std::string& message, std::string param = {},
           std::string code = {})
      : std::runtime_error(message),
        status_(status),
        type_(std::move(type)),
        param_(std::move(param)),
        code_(std::move(code)) {}

  // 400: the request is wrong; `param` names the offending field ("" when none does).
  static ApiError invalid(const std::string& param, const std::string& message,
                          const std::string& code = {});
  // 404 model_not_found.
  static ApiError model_not_found(const std::string& model);
  // 429: the queue is full; come back after `retry_after` seconds.
  static ApiError overloaded(const std::string& message, double retry_after);
  // 503: the model is still loading (or failed to).
  static ApiError unavailable(const std::string& message, const std::string& code);
  // 500: a fault on our side.
  static ApiError internal(const std::string& message);

  int status() const { return status_; }
  const std::string& param() const { return param_; }

  // {"message", "type", "param", "code"}: the OpenAI error object alone.
  nlohmann::json error_object() const;
  // {"error": {...}, "status": N[, "retry_after": s]}: what the engine API returns.
  nlohmann::json to_json() const;

 private:
  int status_;
  std::string type_, param_, code_;
  std::optional<double> retry_after_;
};

}  // namespace zen::serving
