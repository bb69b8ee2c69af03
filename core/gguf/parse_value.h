// Decoding of metadata values with the depth, length and memory caps of Limits applied
// before anything is allocated.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "gguf/cursor.h"
#include "gguf/limits.h"
#include "gguf/value.h"

namespace zen::gguf {

// Memory the decoded metadata has claimed so far, against Limits::max_metadata_bytes.
class MetadataBudget {
 public:
  explicit MetadataBudget(uint64_t limit) : limit_(limit) {}
  void charge(uint64_t bytes);

 private:
  uint64_t used_ = 0;
  uint64_t limit_;
};

// A value type id, refused unless it is one GGUF defines.
ValueType read_value_type(Cursor& c, const char* what);
// A length-prefixed string of at most max_bytes; `what` and `length_what` name it and its
// length in errors (literals, so a 150k-entry vocabulary builds no message strings).
std::string read_string(Cursor& c, uint64_t max_bytes, const char* what, const char* length_what);
// The same, viewing the file's bytes.
std::string_view read_string_view(Cursor& c, uint64_t max_bytes, const char* what,
                                  const char* length_what);
// The value of a metadata pair whose type id has been read.
Value read_value(Cursor& c, ValueType type, const Limits& limits, MetadataBudget& budget);

}  // namespace zen::gguf
