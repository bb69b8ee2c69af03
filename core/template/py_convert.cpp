#include "py_convert.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "utf8.h"

namespace zen::tmpl {
namespace {

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(c | 0x20);
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  return 99;
}

// Digits in `base` with single underscores between them; returns them without underscores.
std::optional<std::string> clean_digits(std::string_view s, int base) {
  std::string out;
  bool prev_digit = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '_') {
      if (!prev_digit || i + 1 >= s.size()) return std::nullopt;
      prev_digit = false;
      continue;
    }
    if (digit_value(c) >= base) return std::nullopt;
    out += c;
    prev_digit = true;
  }
  if (out.empty() || !prev_digit) return std::nullopt;
  return out;
}

}  // namespace

std::optional<int64_t> parse_py_int(std::string_view s, int base) {
  s = utf8::strip(s, true, true);
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  auto prefix_base = [&](std::string_view t) -> int {
    if (t.size() < 2 || t[0] != '0') return 0;
    char p = static_cast<char>(t[1] | 0x20);
    return p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 0;
  };
  int prefixed = prefix_base(s);
  if (base == 0) {
    if (prefixed) {
      base = prefixed;
      s.remove_prefix(2);
      if (!s.empty() && s[0] == '_') s.remove_prefix(1);
    } else {
      base = 10;
      // Python refuses leading zeros in base 0 ("010"), except all zeros.
      if (s.size() > 1 && s[0] == '0' && s.find_first_not_of("0_") != std::string_view::npos)
        return std::nullopt;
    }
  } else if (prefixed == base) {
    s.remove_prefix(2);
    if (!s.empty() && s[0] == '_') s.remove_prefix(1);
  }
  if (base < 2 || base > 36) return std::nullopt;
  auto digits = clean_digits(s, base);
  if (!digits) return std::nullopt;
  errno = 0;
  unsigned long long mag = std::strtoull(digits->c_str(), nullptr, base);
  if (errno == ERANGE) return std::nullopt;
  if (negative) {
    if (mag > static_cast<unsigned long long>(std::numeric_limits<int64_t>::max()) + 1)
      return std::nullopt;
    return static_cast<int64_t>(0 - mag);
  }
  if (mag > static_cast<unsigned long long>(std::numeric_limits<int64_t>::max()))
    return std::nullopt;
  return static_cast<int64_t>(mag);
}

std::optional<double> parse_py_float(std::string_view s) {
  s = utf8::strip(s, true, true);
  std::string body(s);
  size_t i = 0;
  std::string sign;
  if (i < body.size() && (body[i] == '+' || body[i] == '-')) sign = body[i++];
  std::string rest;
  for (size_t k = i; k < body.size(); ++k)
    rest += static_cast<char>(std::tolower(static_cast<unsigned char>(body[k])));
  if (rest == "inf" || rest == "infinity")
    return sign == "-" ? -std::numeric_limits<double>::infinity()
                       : std::numeric_limits<double>::infinity();
  if (rest == "nan") return std::numeric_limits<double>::quiet_NaN();
  // [digits][.digits][e[+-]digits], with at least one digit in the mantissa.
  std::string clean = sign;
  size_t p = i;
  auto take_digits = [&]() -> bool {
    size_t start = p;
    while (p < body.size() && ((body[p] >= '0' && body[p] <= '9') ||
                               (body[p] == '_' && p > start && p + 1 < body.size() &&
                                body[p + 1] >= '0' && body[p + 1] <= '9'))) {
      if (body[p] != '_') clean += body[p];
      ++p;
    }
    return p > start;
  };
  bool int_part = take_digits();
  bool frac_part = false;
  if (p < body.size() && body[p] == '.') {
    clean += '.';
    ++p;
    frac_part = take_digits();
  }
  if (!int_part && !frac_part) return std::nullopt;
  if (p < body.size() && (body[p] == 'e' || body[p] == 'E')) {
    clean += 'e';
    ++p;
    if (p < body.size() && (body[p] == '+' || body[p] == '-')) clean += body[p++];
    if (!take_digits()) return std::nullopt;
  }
  if (p != body.size()) return std::nullopt;
  return std::strtod(clean.c_str(), nullptr);
}

}  // namespace zen::tmpl
