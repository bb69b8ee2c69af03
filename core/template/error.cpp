#include "error.h"

namespace zen::tmpl {
namespace {

std::string format(ErrorKind kind, const std::string& detail, uint32_t line, uint32_t column) {
  std::string where =
      line == 0 ? "template: "
                : "template:" + std::to_string(line) + ":" + std::to_string(column) + ": ";
  switch (kind) {
    case ErrorKind::Syntax:
      return where + "syntax error: " + detail;
    case ErrorKind::Render:
      return where + detail;
    case ErrorKind::Limit:
      return where + "limit exceeded: " + detail;
    case ErrorKind::Raised:
      return where + "raise_exception: " + detail;
  }
  return where + detail;
}

}  // namespace

Error::Error(ErrorKind kind, const std::string& detail, uint32_t line, uint32_t column)
    : std::runtime_error(format(kind, detail, line, column)),
      kind_(kind),
      detail_(detail),
      line_(line),
      column_(column) {}

}  // namespace zen::tmpl
