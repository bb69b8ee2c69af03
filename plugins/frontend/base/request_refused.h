// A request the frontend refuses before the engine sees it: the HTTP status (400 unless said),
// a one-line message, and OpenAI's "param" (the field it is about, "messages[2].content") and
// "code" (both may be empty). The http frontend answers it as an OpenAI error object, the mcp
// frontend as a tool error with the message.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace zen::frontend {

class RequestRefused : public std::runtime_error {
 public:
  RequestRefused(std::string param, const std::string& message, std::string code = {},
                 unsigned status = 400)
      : std::runtime_error(message),
        param_(std::move(param)),
        code_(std::move(code)),
        status_(status) {}

  const std::string& param() const { return param_; }
  const std::string& code() const { return code_; }
  unsigned status() const { return status_; }

 private:
  std::string param_, code_;
  unsigned status_;
};

// Throws RequestRefused(param, message): the 400 of a field the client got wrong.
[[noreturn]] inline void refuse(const std::string& param, const std::string& message) {
  throw RequestRefused(param, message);
}

}  // namespace zen::frontend
