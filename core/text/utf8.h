// Strict UTF-8 (Unicode's definition: no overlongs, surrogates or code points past U+10FFFF),
// shared by everything that must emit or check valid text: streamed detokenization, stop
// strings. The tokenizer's llama.cpp-compatible lenient decoding and the template engine's
// Python semantics are deliberately different and live with them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <zen/utf8.hpp>

namespace zen::text::utf8 {

// Appends the encoding of cpt (<= 0x10FFFF; surrogates are encoded like any other value).
void append(std::string& out, uint32_t cpt);

// The strict decoding step, validation and repair are the SDK's (shared with the frontends).
using zen::utf8::is_valid;
using zen::utf8::next_strict;
using zen::utf8::Status;
using zen::utf8::Step;
using zen::utf8::to_valid;

// How many bytes at the end of s are the valid start of a character still missing its last
// byte(s) (0 to 3). Bytes that can never become a character do not count.
size_t incomplete_tail(std::string_view s);

}  // namespace zen::text::utf8
