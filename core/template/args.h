// Binding call arguments to a builtin's parameters the way Python does: by position, then by
// keyword, refusing unknown keywords, duplicates and too many arguments with Python's wording.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "value.h"

namespace zen::tmpl {

class ArgReader {
 public:
  // `params` are the parameter names after the receiver/input value.
  ArgReader(std::string_view function, const CallArgs& args,
            std::initializer_list<std::string_view> params);

  // The argument for parameter i, or null when the caller did not pass it.
  const Value* get(size_t i) const { return bound_[i]; }
  Value get_or(size_t i, Value fallback) const { return bound_[i] ? *bound_[i] : fallback; }
  bool has(size_t i) const { return bound_[i] != nullptr; }

 private:
  std::vector<const Value*> bound_;
};

// An argument that must be an int (bool counts, as in Python).
int64_t int_arg(const Value& v, std::string_view what);
// An argument that must be a str.
const std::string& string_arg(const Value& v, std::string_view what);

}  // namespace zen::tmpl
