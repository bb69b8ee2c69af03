// Python's int() and float() conversions of strings, as the int and float filters use them:
// surrounding whitespace, signs, underscores between digits, base prefixes, inf and nan.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace zen::tmpl {

// int(s, base); base 0 reads a 0x/0o/0b prefix. nullopt if Python would raise ValueError or
// the value does not fit in 64 bits.
std::optional<int64_t> parse_py_int(std::string_view s, int base);
// float(s); nullopt if Python would raise ValueError.
std::optional<double> parse_py_float(std::string_view s);

}  // namespace zen::tmpl
