#include "utf8.h"

#include <locale.h>
#include <wctype.h>

#include <algorithm>

namespace zen::tmpl::utf8 {
namespace {

constexpr char32_t kEscapeBase = 0xDC00;  // invalid byte b decodes to U+DC00 + b (b >= 0x80)

Decoded invalid(unsigned char byte) { return {kEscapeBase + byte, 1}; }

bool continuation(unsigned char b) { return (b & 0xC0) == 0x80; }

// glibc's C.UTF-8 locale carries the Unicode character classes and simple case mappings;
// the process-wide locale stays untouched.
locale_t unicode_locale() {
  static const locale_t loc = [] {
    locale_t l = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
    return l;
  }();
  return loc;
}

bool is_escape(char32_t c) { return c >= kEscapeBase + 0x80 && c <= kEscapeBase + 0xFF; }

bool wide_class(char32_t c, int (*fn)(wint_t, locale_t)) {
  locale_t loc = unicode_locale();
  if (loc == nullptr || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return false;
  return fn(static_cast<wint_t>(c), loc) != 0;
}

}  // namespace

Decoded decode(std::string_view s, size_t pos) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size();
  unsigned char b0 = p[pos];
  if (b0 < 0x80) return {b0, 1};
  size_t need;
  char32_t cp;
  char32_t min;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1, cp = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2, cp = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3, cp = b0 & 0x07, min = 0x10000;
  } else {
    return invalid(b0);
  }
  for (size_t k = 1; k <= need; ++k) {
    if (pos + k >= n || !continuation(p[pos + k])) return invalid(b0);
    cp = (cp << 6) | (p[pos + k] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return invalid(b0);
  return {cp, need + 1};
}

void append(std::string& out, char32_t c) {
  if (is_escape(c)) {
    out.push_back(static_cast<char>(c - kEscapeBase));
  } else if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

std::u32string to_code_points(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    Decoded d = decode(s, i);
    out.push_back(d.code_point);
    i += d.length;
  }
  return out;
}

std::string from_code_points(std::u32string_view cps) {
  std::string out;
  out.reserve(cps.size());
  for (char32_t c : cps) append(out, c);
  return out;
}

size_t length(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++n) {
    auto b = static_cast<unsigned char>(s[i]);
    i += b < 0x80 ? 1 : decode(s, i).length;
  }
  return n;
}

bool is_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

bool is_space(char32_t c) {
  if (c <= 0x20) return c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
         c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

bool is_alpha(char32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  return wide_class(c, iswalpha_l);
}

bool is_digit(char32_t c) {
  if (c < 0x80) return c >= '0' && c <= '9';
  return wide_class(c, iswdigit_l);
}

bool is_alnum(char32_t c) { return is_alpha(c) || is_digit(c); }

bool is_upper(char32_t c) {
  if (c < 0x80) return c >= 'A' && c <= 'Z';
  return wide_class(c, iswupper_l);
}

bool is_lower(char32_t c) {
  if (c < 0x80) return c >= 'a' && c <= 'z';
  return wide_class(c, iswlower_l);
}

bool is_word(char32_t c) { return c == '_' || is_alnum(c); }

bool is_printable(char32_t c) {
  if (c < 0x80) return c >= 0x20 && c < 0x7F;
  if (is_escape(c) || c < 0xA1 || is_space(c)) return false;
  // Format characters (category Cf) that the C library may call printable.
  if (c == 0xAD || (c >= 0x600 && c <= 0x605) || c == 0x61C || c == 0x6DD || c == 0x70F ||
      c == 0x180E || (c >= 0x200B && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) ||
      (c >= 0x2060 && c <= 0x206F) || c == 0xFEFF || (c >= 0xFFF9 && c <= 0xFFFB) ||
      (c >= 0xE0000 && c <= 0xE0FFF) || (c >= 0xE000 && c <= 0xF8FF) || c >= 0xF0000)
    return false;
  locale_t loc = unicode_locale();
  if (loc == nullptr) return true;
  return iswprint_l(static_cast<wint_t>(c), loc) != 0;
}

char32_t to_upper(char32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') ? c - 32 : c;
  locale_t loc = unicode_locale();
  if (loc == nullptr || is_escape(c)) return c;
  return static_cast<char32_t>(towupper_l(static_cast<wint_t>(c), loc));
}

char32_t to_lower(char32_t c) {
  if (c < 0x80) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
  locale_t loc = unicode_locale();
  if (loc == nullptr || is_escape(c)) return c;
  return static_cast<char32_t>(towlower_l(static_cast<wint_t>(c), loc));
}

std::string upper(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    Decoded d = decode(s, i);
    i += d.length;
    if (d.code_point == 0xDF) {  // sharp s upper-cases to two letters
      out += "SS";
    } else {
      append(out, to_upper(d.code_point));
    }
  }
  return out;
}

std::string lower(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    Decoded d = decode(s, i);
    i += d.length;
    append(out, to_lower(d.code_point));
  }
  return out;
}

std::string_view strip(std::string_view s, bool left, bool right) {
  size_t begin = 0, end = s.size();
  if (left) {
    while (begin < end) {
      Decoded d = decode(s, begin);
      if (!is_space(d.code_point)) break;
      begin += d.length;
    }
  }
  if (right) {
    while (end > begin) {
      size_t start = end - 1;  // find the start of the last code point
      while (start > begin && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
      Decoded d = decode(s, start);
      if (start + d.length != end) {  // trailing invalid byte: decode it alone
        start = end - 1;
        d = decode(s, start);
      }
      if (!is_space(d.code_point)) break;
      end = start;
    }
  }
  return s.substr(begin, end - begin);
}

std::string strip_chars(std::string_view s, std::string_view chars, bool left, bool right) {
  std::u32string set = to_code_points(chars);
  std::u32string cps = to_code_points(s);
  size_t begin = 0, end = cps.size();
  auto in_set = [&](char32_t c) { return set.find(c) != std::u32string::npos; };
  if (left)
    while (begin < end && in_set(cps[begin])) ++begin;
  if (right)
    while (end > begin && in_set(cps[end - 1])) --end;
  return from_code_points(std::u32string_view(cps).substr(begin, end - begin));
}

bool is_single_case(std::string_view s, bool upper) {
  bool any = false;
  for (size_t i = 0; i < s.size();) {
    const Decoded d = decode(s, i);
    i += d.length;
    if (upper ? is_lower(d.code_point) : is_upper(d.code_point)) return false;
    if (upper ? is_upper(d.code_point) : is_lower(d.code_point)) any = true;
  }
  return any;
}

}  // namespace zen::tmpl::utf8
