// The errors a request can end with, as the typed tasks report them (zen_task_error): a
// status, a one-line message, the request member it is about, a stable code, and for a busy or
// unready server the seconds to wait. How a protocol words them (an HTTP status, an OpenAI
// error type) is the frontend's business.
#pragma once

#include <stdexcept>
#include <string>

#include <zen/task.hpp>

namespace zen::serving {

class ApiError : public std::runtime_error {
 public:
  ApiError(zen_status status, const std::string& message, std::string member = {},
           std::string code = {}, double retry_after = 0)
      : std::runtime_error(message),
        status_(status),
        member_(std::move(member)),
        code_(std::move(code)),
        retry_after_(retry_after) {}

  // The request is wrong; `member` names the offending field ("" when none does).
  static ApiError invalid(const std::string& member, const std::string& message,
                          const std::string& code = {});
  // No such model (code model_not_found).
  static ApiError model_not_found(const std::string& model);
  // The queue is full; come back after `retry_after` seconds (code queue_full).
  static ApiError overloaded(const std::string& message, double retry_after);
  // The model is still loading (or failed to), or the service is stopping.
  static ApiError unavailable(const std::string& message, const std::string& code);
  // A fault on our side.
  static ApiError internal(const std::string& message);

  zen_status status() const { return status_; }
  const std::string& member() const { return member_; }
  const std::string& code() const { return code_; }

  task::TaskError task_error() const;

 private:
  zen_status status_;
  std::string member_, code_;
  double retry_after_;
};

}  // namespace zen::serving
