// UTF-8 as Python sees text: strings are sequences of code points. Bytes that are not valid
// UTF-8 decode as lone surrogates U+DC80..U+DCFF (Python's "surrogateescape") and encode back
// to the same byte, so any byte string survives slicing, reversing and joining unchanged.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace zen::tmpl::utf8 {

struct Decoded {
  char32_t code_point;
  size_t length;  // bytes consumed, >= 1
};

// Decodes the code point starting at s[pos] (pos < s.size()).
Decoded decode(std::string_view s, size_t pos);
void append(std::string& out, char32_t code_point);

std::u32string to_code_points(std::string_view s);
std::string from_code_points(std::u32string_view code_points);
// Number of code points (Python len()).
size_t length(std::string_view s);
bool is_ascii(std::string_view s);

// Character classes with Python's meaning (str.isspace, str.isalpha, ...). Non-ASCII letters
// and case mappings come from the C library's Unicode tables (C.UTF-8 locale).
bool is_space(char32_t c);
bool is_alpha(char32_t c);
bool is_digit(char32_t c);
bool is_alnum(char32_t c);
bool is_upper(char32_t c);
bool is_lower(char32_t c);
bool is_printable(char32_t c);
// Python str.isupper() (upper) / str.islower(): at least one cased character, none of the other
// case.
bool is_single_case(std::string_view s, bool upper);  // Python str.isprintable for one character
// A \w character in Python's Unicode regex syntax.
bool is_word(char32_t c);

// Python str.upper()/lower() of a whole string (handles the few one-to-many mappings such as
// German sharp s that matter in practice).
std::string upper(std::string_view s);
std::string lower(std::string_view s);
char32_t to_upper(char32_t c);
char32_t to_lower(char32_t c);

// Strips Python whitespace (chars empty) or the given characters from the ends.
std::string_view strip(std::string_view s, bool left, bool right);
std::string strip_chars(std::string_view s, std::string_view chars, bool left, bool right);

}  // namespace zen::tmpl::utf8
