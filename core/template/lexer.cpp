#include "lexer.h"

#include <cerrno>
#include <cstdlib>
#include <optional>

#include "error.h"
#include "utf8.h"

namespace zen::tmpl {
namespace {

bool is_ascii_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || is_digit(c); }

// Jinja reads templates with universal newlines and drops one trailing newline
// (keep_trailing_newline=False).
std::string normalize_newlines(std::string_view src) {
  std::string out;
  out.reserve(src.size());
  for (size_t i = 0; i < src.size(); ++i) {
    if (src[i] == '\r') {
      out += '\n';
      if (i + 1 < src.size() && src[i + 1] == '\n') ++i;
    } else {
      out += src[i];
    }
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// Turns byte offsets into line:column (column counted in characters). Offsets must be asked
// for in increasing order, which keeps the whole pass linear.
class PositionTracker {
 public:
  explicit PositionTracker(std::string_view s) : s_(s) {}
  Pos at(size_t offset) {
    if (offset < off_) {  // only error reports look back; rescan from the start
      off_ = 0;
      pos_ = Pos{};
    }
    while (off_ < offset && off_ < s_.size()) {
      if (s_[off_] == '\n') {
        ++pos_.line;
        pos_.column = 1;
        ++off_;
      } else {
        off_ += utf8::decode(s_, off_).length;
        ++pos_.column;
      }
    }
    return pos_;
  }

 private:
  std::string_view s_;
  size_t off_ = 0;
  Pos pos_;
};

// Python whitespace (what `\s` and str.rstrip() match), as a byte length at `pos`, 0 if none.
size_t space_at(std::string_view s, size_t pos) {
  if (pos >= s.size()) return 0;
  if (static_cast<unsigned char>(s[pos]) < 0x80)
    return is_ascii_space(s[pos]) || (s[pos] >= 0x1C && s[pos] <= 0x1F) ? 1 : 0;
  utf8::Decoded d = utf8::decode(s, pos);
  return utf8::is_space(d.code_point) ? d.length : 0;
}

size_t skip_spaces(std::string_view s, size_t pos) {
  while (size_t n = space_at(s, pos)) pos += n;
  return pos;
}

class Lexer {
 public:
  explicit Lexer(std::string_view source) : src_(normalize_newlines(source)), where_(src_) {}

  std::vector<Token> run() {
    size_t pos = 0;
    while (pos < src_.size()) {
      size_t tag = find_tag(pos);
      if (tag == std::string::npos) {
        emit_text(pos, src_.substr(pos));
        break;
      }
      char kind = src_[tag + 1];
      char sign = tag + 2 < src_.size() && (src_[tag + 2] == '-' || src_[tag + 2] == '+')
                      ? src_[tag + 2]
                      : 0;
      size_t after_open = tag + 2 + (sign ? 1 : 0);
      std::optional<size_t> raw_body = kind == '%' ? raw_begin_end(after_open) : std::nullopt;
      emit_text(pos, stripped_text(src_.substr(pos, tag - pos), sign, kind != '{'));
      if (raw_body) {
        pos = lex_raw(*raw_body, tag);
      } else if (kind == '#') {
        pos = lex_comment(after_open, tag);
      } else {
        pos = lex_tag(kind, after_open, tag);
      }
    }
    push(TokenType::End, src_.size());
    return std::move(tokens_);
  }

 private:
  [[noreturn]] void fail(size_t offset, const std::string& message) {
    Pos p = where_.at(offset);
    throw Error(ErrorKind::Syntax, message, p.line, p.column);
  }

  Token& push(TokenType type, size_t offset, std::string text = {}) {
    tokens_.push_back(Token{type, where_.at(offset), std::move(text)});
    return tokens_.back();
  }

  void emit_text(size_t offset, std::string_view text) {
    if (!text.empty()) push(TokenType::Text, offset, std::string(text));
  }

  // Next "{{", "{%" or "{#" at or after pos.
  size_t find_tag(size_t pos) const {
    while (true) {
      pos = src_.find('{', pos);
      if (pos == std::string::npos || pos + 1 >= src_.size()) return std::string::npos;
      char c = src_[pos + 1];
      if (c == '{' || c == '%' || c == '#') return pos;
      ++pos;
    }
  }

  // Whitespace control for the text before a tag: "-" strips all trailing whitespace;
  // otherwise lstrip_blocks removes the whitespace between the line start and a block or
  // comment tag, when nothing else is on that line before the tag.
  std::string_view stripped_text(std::string_view text, char sign, bool lstrip_applies) const {
    if (sign == '-') return utf8::strip(text, false, true);
    if (sign == '+' || !lstrip_applies) return text;
    size_t nl = text.rfind('\n');
    size_t line_begin = nl == std::string_view::npos ? 0 : nl + 1;
    if (line_begin == 0 && !line_starting_) return text;
    if (!utf8::strip(text.substr(line_begin), true, false).empty()) return text;
    return text.substr(0, line_begin);
  }

  // Consumes a closing delimiter of a block or comment ("%}" / "#}") at pos with its
  // whitespace control; returns the position after it, or npos if it is not there.
  size_t close_at(size_t pos, char kind, bool trim_newline) {
    auto starts = [&](size_t p, std::string_view s) { return src_.compare(p, s.size(), s) == 0; };
    std::string close{kind, '}'};
    size_t end;
    if (starts(pos, "+" + close)) {
      end = pos + 3;
    } else if (starts(pos, "-" + close)) {
      end = skip_spaces(src_, pos + 3);
    } else if (starts(pos, close)) {
      end = pos + 2;
      if (trim_newline && end < src_.size() && src_[end] == '\n') ++end;
    } else {
      return std::string::npos;
    }
    line_starting_ = end > 0 && src_[end - 1] == '\n';
    return end;
  }

  // "{% raw %}" (with optional -/+ signs): the offset just past it, if the tag at `pos` is one.
  std::optional<size_t> raw_begin_end(size_t pos) const {
    size_t p = skip_spaces(src_, pos);
    if (src_.compare(p, 3, "raw") != 0) return std::nullopt;
    p = skip_spaces(src_, p + 3);
    if (src_.compare(p, 3, "-%}") == 0) return skip_spaces(src_, p + 3);
    if (src_.compare(p, 2, "%}") == 0) return p + 2;
    return std::nullopt;
  }

  size_t lex_raw(size_t body, size_t tag_offset) {
    line_starting_ = body > 0 && src_[body - 1] == '\n';
    size_t search = body;
    while (true) {
      size_t tag = src_.find("{%", search);
      if (tag == std::string::npos) fail(tag_offset, "missing end of raw directive");
      char sign = tag + 2 < src_.size() && (src_[tag + 2] == '-' || src_[tag + 2] == '+')
                      ? src_[tag + 2]
                      : 0;
      size_t p = skip_spaces(src_, tag + 2 + (sign ? 1 : 0));
      if (src_.compare(p, 6, "endraw") == 0) {
        // The raw text's whitespace control depends on how the {% raw %} tag ended, so strip
        // it before close_at() records how {% endraw %} ends.
        std::string text(stripped_text(src_.substr(body, tag - body), sign, true));
        size_t end = close_at(skip_spaces(src_, p + 6), '%', true);
        if (end != std::string::npos) {
          emit_text(body, text);
          return end;
        }
      }
      search = tag + 2;
    }
  }

  size_t lex_comment(size_t pos, size_t tag_offset) {
    for (size_t p = pos; p + 1 < src_.size(); ++p) {
      if (src_[p] == '+' || src_[p] == '-' || src_[p] == '#') {
        size_t end = close_at(p, '#', true);
        if (end != std::string::npos) return end;
      }
    }
    fail(tag_offset, "missing end of comment tag");
  }

  size_t lex_tag(char kind, size_t pos, size_t tag_offset) {
    bool block = kind == '%';
    push(block ? TokenType::BlockBegin : TokenType::VarBegin, tag_offset);
    std::string balance;  // open brackets awaiting their closer
    while (true) {
      pos = skip_spaces(src_, pos);
      if (pos >= src_.size())
        fail(tag_offset, std::string("unexpected end of template: tag opened here has no '") +
                             (block ? "%}" : "}}") + "'");
      if (balance.empty()) {
        size_t end = block ? close_at(pos, '%', true) : var_close_at(pos);
        if (end != std::string::npos) {
          push(block ? TokenType::BlockEnd : TokenType::VarEnd, pos);
          return end;
        }
      }
      pos = lex_expression_token(pos, balance);
    }
  }

  size_t var_close_at(size_t pos) {
    size_t end;
    if (src_.compare(pos, 3, "-}}") == 0) {
      end = skip_spaces(src_, pos + 3);
    } else if (src_.compare(pos, 2, "}}") == 0) {
      end = pos + 2;
    } else {
      return std::string::npos;
    }
    line_starting_ = src_[end - 1] == '\n';
    return end;
  }

  // Digits with single underscores between them ("1_000"); returns the end, or start if none.
  size_t digits(size_t pos) const {
    size_t p = pos;
    while (p < src_.size() && is_digit(src_[p])) {
      ++p;
      if (p + 1 < src_.size() && src_[p] == '_' && is_digit(src_[p + 1])) ++p;
    }
    return p;
  }

  // Jinja's float: digits then ".digits", an exponent, or both; not right after a ".".
  size_t float_end(size_t pos) const {
    if (pos > 0 && src_[pos - 1] == '.') return pos;
    size_t p = digits(pos);
    if (p == pos) return pos;
    bool fraction = false;
    if (p + 1 < src_.size() && src_[p] == '.' && is_digit(src_[p + 1])) {
      p = digits(p + 1);
      fraction = true;
    }
    if (p < src_.size() && (src_[p] == 'e' || src_[p] == 'E')) {
      size_t q = p + 1;
      if (q < src_.size() && (src_[q] == '+' || src_[q] == '-')) ++q;
      size_t r = digits(q);
      if (r > q) return r;
    }
    return fraction ? p : pos;
  }

  static std::string without_underscores(std::string_view s) {
    std::string out;
    for (char c : s)
      if (c != '_') out += c;
    return out;
  }

  size_t lex_number(size_t pos) {
    size_t fend = float_end(pos);
    if (fend > pos) {
      std::string text = without_underscores(src_.substr(pos, fend - pos));
      push(TokenType::Float, pos).float_value = std::strtod(text.c_str(), nullptr);
      return fend;
    }
    int base = 10;
    size_t p = pos;
    if (src_[pos] == '0' && pos + 1 < src_.size()) {
      char x = static_cast<char>(src_[pos + 1] | 0x20);
      base = x == 'b' ? 2 : x == 'o' ? 8 : x == 'x' ? 16 : 10;
    }
    std::string text;
    if (base != 10) {
      p = pos + 2;
      auto valid = [&](char c) {
        c = static_cast<char>(c | 0x20);
        return base == 16 ? (is_digit(c) || (c >= 'a' && c <= 'f')) : (c >= '0' && c < '0' + base);
      };
      while (p < src_.size() &&
             (valid(src_[p]) || (src_[p] == '_' && p + 1 < src_.size() && valid(src_[p + 1]))))
        ++p;
      if (p == pos + 2) {
        base = 10;  // a lone "0" followed by a name such as "b"
        p = pos + 1;
      }
    } else if (src_[pos] == '0') {
      p = pos + 1;
      while (p < src_.size() &&
             (src_[p] == '0' || (src_[p] == '_' && p + 1 < src_.size() && src_[p + 1] == '0')))
        ++p;
    } else {
      p = digits(pos);
    }
    text = without_underscores(src_.substr(pos, p - pos));
    if (base != 10) text = text.substr(2);
    errno = 0;
    char* endp = nullptr;
    long long v = std::strtoll(text.c_str(), &endp, base);
    if (errno == ERANGE) fail(pos, "integer literal " + text + " is too large");
    push(TokenType::Integer, pos).int_value = v;
    return p;
  }

  size_t lex_string(size_t pos) {
    char quote = src_[pos];
    std::string value;
    size_t p = pos + 1;
    while (true) {
      if (p >= src_.size()) fail(pos, "unterminated string literal");
      char c = src_[p];
      if (c == quote) break;
      if (c != '\\') {
        value += c;
        ++p;
        continue;
      }
      if (p + 1 >= src_.size()) fail(pos, "unterminated string literal");
      p = unescape(p, value);
    }
    push(TokenType::String, pos, std::move(value));
    return p + 1;
  }

  // Python's unicode-escape decoding of one backslash sequence at p; returns the next offset.
  size_t unescape(size_t p, std::string& out) {
    char e = src_[p + 1];
    auto hex = [&](size_t start, size_t count) -> char32_t {
      char32_t v = 0;
      for (size_t k = 0; k < count; ++k) {
        char h = start + k < src_.size() ? src_[start + k] : '\0';
        int d = is_digit(h)                              ? h - '0'
                : (h | 0x20) >= 'a' && (h | 0x20) <= 'f' ? (h | 0x20) - 'a' + 10
                                                         : -1;
        if (d < 0) fail(p, std::string("truncated \\") + e + " escape in string literal");
        v = v * 16 + static_cast<char32_t>(d);
      }
      return v;
    };
    switch (e) {
      case '\n':
        return p + 2;  // line continuation
      case '\\':
        out += '\\';
        return p + 2;
      case '\'':
        out += '\'';
        return p + 2;
      case '"':
        out += '"';
        return p + 2;
      case 'a':
        out += '\a';
        return p + 2;
      case 'b':
        out += '\b';
        return p + 2;
      case 'f':
        out += '\f';
        return p + 2;
      case 'n':
        out += '\n';
        return p + 2;
      case 'r':
        out += '\r';
        return p + 2;
      case 't':
        out += '\t';
        return p + 2;
      case 'v':
        out += '\v';
        return p + 2;
      case 'x':
        utf8::append(out, hex(p + 2, 2));
        return p + 4;
      case 'u': {
        char32_t cp = hex(p + 2, 4);
        size_t next = p + 6;
        // A surrogate pair written as two escapes is one character.
        if (cp >= 0xD800 && cp <= 0xDBFF && src_.compare(next, 2, "\\u") == 0) {
          char32_t low = hex(next + 2, 4);
          if (low >= 0xDC00 && low <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            next += 6;
          }
        }
        append_code_point(p, cp, out);
        return next;
      }
      case 'U':
        append_code_point(p, hex(p + 2, 8), out);
        return p + 10;
      case 'N':
        fail(p, "\\N{...} escapes are not supported in string literals");
      default:
        break;
    }
    if (e >= '0' && e <= '7') {
      char32_t v = 0;
      size_t q = p + 1;
      for (int k = 0; k < 3 && q < src_.size() && src_[q] >= '0' && src_[q] <= '7'; ++k, ++q)
        v = v * 8 + static_cast<char32_t>(src_[q] - '0');
      utf8::append(out, v);
      return q;
    }
    out += '\\';  // unknown escapes keep their backslash, as in Python
    return p + 1;
  }

  void append_code_point(size_t p, char32_t cp, std::string& out) {
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      fail(p, "illegal Unicode character in string literal");
    utf8::append(out, cp);
  }

  size_t lex_operator(size_t pos, std::string& balance) {
    static constexpr std::string_view two[] = {"//", "**", "==", "!=", ">=", "<="};
    for (std::string_view op : two) {
      if (src_.compare(pos, 2, op) == 0) {
        push(TokenType::Operator, pos, std::string(op));
        return pos + 2;
      }
    }
    char c = src_[pos];
    static constexpr std::string_view one = "+-/*%~[](){}><=.:|,;";
    if (one.find(c) == std::string_view::npos) {
      utf8::Decoded d = utf8::decode(src_, pos);
      std::string ch;
      utf8::append(ch, d.code_point);
      fail(pos, "unexpected character '" + ch + "' in tag");
    }
    if (c == '(' || c == '[' || c == '{') {
      balance += c == '(' ? ')' : c == '[' ? ']' : '}';
    } else if (c == ')' || c == ']' || c == '}') {
      if (balance.empty()) fail(pos, std::string("unexpected '") + c + "'");
      if (balance.back() != c)
        fail(pos, std::string("unexpected '") + c + "', expected '" + balance.back() + "'");
      balance.pop_back();
    }
    push(TokenType::Operator, pos, std::string(1, c));
    return pos + 1;
  }

  size_t lex_expression_token(size_t pos, std::string& balance) {
    char c = src_[pos];
    if (is_digit(c)) return lex_number(pos);
    if (is_name_start(c)) {
      size_t p = pos;
      while (p < src_.size() && is_name_char(src_[p])) ++p;
      push(TokenType::Name, pos, src_.substr(pos, p - pos));
      return p;
    }
    if (c == '\'' || c == '"') return lex_string(pos);
    return lex_operator(pos, balance);
  }

  std::string src_;
  PositionTracker where_;
  std::vector<Token> tokens_;
  bool line_starting_ = true;  // the previous tag ended a line (or we are at the start)
};

}  // namespace

std::vector<Token> tokenize(std::string_view source) { return Lexer(source).run(); }

}  // namespace zen::tmpl
