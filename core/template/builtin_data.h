// The built-in templates' text, embedded at build time from builtin/*.jinja by
// embed_templates.cmake (see CMakeLists.txt).
#pragma once

#include <cstddef>

namespace zen::tmpl::builtin_data {

struct Entry {
  const char* name;  // file name without .jinja
  const unsigned char* data;
  size_t size;
};

extern const Entry kEntries[];
extern const size_t kEntryCount;

}  // namespace zen::tmpl::builtin_data
