#include "api_error.h"

namespace zen::serving {

ApiError ApiError::invalid(const std::string& param, const std::string& message,
                           const std::string& code) {
  return ApiError(400, "invalid_request_error", message, param, code);
}

ApiError ApiError::model_not_found(const std::string& model) {
  return ApiError(404, "not_found_error", "The model '" + model + "' does not exist", "model",
                  "model_not_found");
}

ApiError ApiError::overloaded(const std::string& message, double retry_after) {
  ApiError e(429, "server_overloaded", message, {}, "queue_full");
  e.retry_after_ = retry_after;
  return e;
}

ApiError ApiError::unavailable(const std::string& message, const std::string& code) {
  ApiError e(503, "service_unavailable", message, "model", code);
  e.retry_after_ = 1;
  return e;
}

ApiError ApiError::internal(const std::string& message) {
  return ApiError(500, "server_error", message);
}

nlohmann::json ApiError::error_object() const {
  // Built member by member: GCC 12 warns (falsely) about nested initializer lists here.
  nlohmann::json j = nlohmann::json::object();
  j["message"] = what();
  j["type"] = type_;
  j["param"] = nullptr;
  if (!param_.empty()) j["param"] = param_;
  j["code"] = nullptr;
  if (!code_.empty()) j["code"] = code_;
  return j;
}

nlohmann::json ApiError::to_json() const {
  nlohmann::json j = nlohmann::json::object();
  j["error"] = error_object();
  j["status"] = status_;
  if (retry_after_) j["retry_after"] = *retry_after_;
  return j;
}

}  // namespace zen::serving
