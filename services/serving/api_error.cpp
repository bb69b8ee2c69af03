#include "api_error.h"

namespace zen::serving {

ApiError ApiError::invalid(const std::string& member, const std::string& message,
                           const std::string& code) {
  return ApiError(ZEN_ERR_INVALID_ARG, message, member, code);
}

ApiError ApiError::model_not_found(const std::string& model) {
  return ApiError(ZEN_ERR_NOT_FOUND, "The model '" + model + "' does not exist", "model",
                  "model_not_found");
}

ApiError ApiError::overloaded(const std::string& message, double retry_after) {
  return ApiError(ZEN_ERR_BUSY, message, {}, "queue_full", retry_after);
}

ApiError ApiError::unavailable(const std::string& message, const std::string& code) {
  return ApiError(ZEN_ERR_UNAVAILABLE, message, "model", code, 1);
}

ApiError ApiError::internal(const std::string& message) {
  return ApiError(ZEN_ERR_INTERNAL, message);
}

task::TaskError ApiError::task_error() const {
  return task::TaskError{status_, what(), member_, code_, retry_after_};
}

}  // namespace zen::serving
