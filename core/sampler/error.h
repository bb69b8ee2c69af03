// The exceptions the sampler throws, each a single line naming what is wrong.
//
// InvalidParams is the caller's mistake (a request field out of range: the server answers 400);
// a plain Error is a state that sampling cannot continue from (every logit is -inf or NaN).
#pragma once

#include <stdexcept>
#include <string>

namespace zen::sampling {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

class InvalidParams : public Error {
 public:
  explicit InvalidParams(const std::string& message) : Error(message) {}
};

}  // namespace zen::sampling
