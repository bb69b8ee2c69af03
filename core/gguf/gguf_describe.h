// Human- and machine-readable summaries of a parsed GGUF file (`zen-engine inspect`). Long
// arrays are summarized (type, length, first elements) so a 150k-token vocabulary stays short.
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

#include "gguf/gguf.h"

namespace zen::gguf {

// {"version", "file_size", "alignment", "data_offset",
//  "metadata": [{"key", "type", "value"} ...]  -- arrays add "length" and, when cut, "truncated"
//  "tensors": [{"name", "type", "shape", "elements", "offset", "file_offset", "size"} ...]}
// Every string is valid UTF-8 (invalid bytes become U+FFFD), so dump() cannot throw.
nlohmann::json describe_json(const File& file);

// gguf-dump style: a header line, one line per metadata key, then the tensor table.
void describe_text(const File& file, std::ostream& out);

}  // namespace zen::gguf
