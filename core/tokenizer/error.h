// The one exception the tokenizer throws: a single line saying what is wrong with the model's
// tokenizer metadata (or with a call), so a refused file can be fixed without reading code.
#pragma once

#include <stdexcept>
#include <string>

namespace zen::tokenizer {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace zen::tokenizer
