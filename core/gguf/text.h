// Byte strings from a file shown to people: UTF-8 checks and escaping, so error messages and
// describe output stay one line and valid UTF-8 whatever bytes a file holds.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace zen::gguf {

// Length of the well-formed UTF-8 sequence starting at s[i] (no overlongs, surrogates or code
// points above U+10FFFF), or 0 if the bytes there are not one.
size_t utf8_sequence_length(std::string_view s, size_t i);
bool is_valid_utf8(std::string_view s);

// Printable rendering: valid UTF-8 kept, control characters and invalid bytes as \n, \t,
// \xNN; cut after max_bytes of input with "...". The result is valid UTF-8 with no newline.
std::string escape(std::string_view s, size_t max_bytes = 120);
// escape() in single quotes, the form used for keys and names in error messages.
std::string quote(std::string_view s, size_t max_bytes = 120);
// s with each invalid byte replaced by U+FFFD, so JSON serialization cannot fail.
std::string to_valid_utf8(std::string_view s);

}  // namespace zen::gguf
