// The one exception the GGUF reader throws: a single line naming what is wrong and where
// (byte offset, metadata key or tensor), so a refused file can be fixed without a hex editor.
#pragma once

#include <stdexcept>
#include <string>

namespace zen::gguf {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace zen::gguf
