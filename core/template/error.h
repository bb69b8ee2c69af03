// The one exception the template engine throws: a single line naming where in the template
// (line:column) and what went wrong, so a broken chat template can be fixed without a debugger.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace zen::tmpl {

enum class ErrorKind {
  Syntax,  // the template text is not valid Jinja (reported by Template::parse)
  Render,  // evaluation failed: type error, undefined value misused, unknown filter...
  Limit,   // a sandbox limit (size, steps, depth, output) stopped the template
  Raised,  // the template called raise_exception(message); detail() is that message
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& detail, uint32_t line, uint32_t column);

  ErrorKind kind() const { return kind_; }
  // The message without the position prefix (for Raised: exactly the template's message).
  const std::string& detail() const { return detail_; }
  uint32_t line() const { return line_; }
  uint32_t column() const { return column_; }

 private:
  ErrorKind kind_;
  std::string detail_;
  uint32_t line_;
  uint32_t column_;
};

// Thrown by value helpers that do not know where in the template they run; the interpreter
// turns it into an Error at the position of the innermost expression being evaluated.
class Failure : public std::exception {
 public:
  explicit Failure(std::string message, ErrorKind kind = ErrorKind::Render)
      : message_(std::move(message)), kind_(kind) {}
  const char* what() const noexcept override { return message_.c_str(); }
  const std::string& message() const { return message_; }
  ErrorKind kind() const { return kind_; }

 private:
  std::string message_;
  ErrorKind kind_;
};

}  // namespace zen::tmpl
