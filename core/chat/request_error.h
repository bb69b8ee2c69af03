// A chat request the client got wrong (an HTTP 400): the message is one line, and param names
// the offending field the way OpenAI's error objects do ("messages[2].tool_calls[0]", "tools").
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace zen::chat {

class RequestError : public std::runtime_error {
 public:
  RequestError(std::string param, const std::string& message)
      : std::runtime_error(message), param_(std::move(param)) {}
  const std::string& param() const { return param_; }

 private:
  std::string param_;
};

}  // namespace zen::chat
