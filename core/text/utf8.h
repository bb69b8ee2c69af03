// Strict UTF-8 (Unicode's definition: no overlongs, surrogates or code points past U+10FFFF),
// shared by everything that must emit or check valid text: streamed detokenization, stop
// strings. The tokenizer's llama.cpp-compatible lenient decoding and the template engine's
// Python semantics are deliberately different and live with them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace zen::text::utf8 {

// Appends the encoding of cpt (<= 0x10FFFF; surrogates are encoded like any other value).
void append(std::string& out, uint32_t cpt);

enum class Status { kComplete, kIncomplete, kInvalid };
struct Step {
  Status status;
  size_t length;  // kComplete: the sequence; kIncomplete: bytes present; kInvalid: bytes to replace
};
// One decoding step at s[i] (i < s.size()): a complete scalar value, the valid start of one cut
// off by the end of s, or an ill-formed subsequence to replace by one U+FFFD (the maximal
// subpart, as Unicode and WHATWG recommend).
Step next_strict(std::string_view s, size_t i);

bool is_valid(std::string_view s);
// s with every ill-formed or cut-off sequence replaced by one U+FFFD each (maximal subparts, as
// next_strict reads them): text safe to put in JSON.
std::string to_valid(std::string_view s);

// How many bytes at the end of s are the valid start of a character still missing its last
// byte(s) (0 to 3). Bytes that can never become a character do not count.
size_t incomplete_tail(std::string_view s);

}  // namespace zen::text::utf8
