#include "format.h"

#include <cmath>
#include <cstdio>

#include "access.h"
#include "args.h"
#include "error.h"
#include "markup.h"
#include "py_format.h"
#include "utf8.h"

namespace zen::tmpl {
namespace {

struct Spec {
  char fill = ' ';
  char align = 0;  // '<', '>', '^', '=' or 0 for the type's default
  char sign = '-';
  bool alternate = false;
  bool zero = false;
  int width = -1;
  int precision = -1;
  char grouping = 0;
  char type = 0;
};

std::string pad(std::string body, const Spec& spec, char default_align) {
  size_t len = utf8::length(body);
  if (spec.width < 0 || len >= static_cast<size_t>(spec.width)) return body;
  size_t n = static_cast<size_t>(spec.width) - len;
  char align = spec.align ? spec.align : default_align;
  std::string fill(1, spec.fill);
  auto repeat = [&](size_t k) {
    std::string s;
    for (size_t i = 0; i < k; ++i) s += fill;
    return s;
  };
  if (align == '<') return body + repeat(n);
  if (align == '^') return repeat(n / 2) + body + repeat(n - n / 2);
  if (align == '=' && !body.empty() && (body[0] == '-' || body[0] == '+' || body[0] == ' '))
    return body.substr(0, 1) + repeat(n) + body.substr(1);
  return repeat(n) + body;
}

std::string group_digits(const std::string& digits, char sep) {
  std::string out;
  size_t n = digits.size();
  for (size_t i = 0; i < n; ++i) {
    out += digits[i];
    size_t left = n - 1 - i;
    if (left > 0 && left % 3 == 0) out += sep;
  }
  return out;
}

// Numbers right-align; "0" without an explicit alignment pads with zeros after the sign.
std::string pad_number(const std::string& body, const Spec& spec) {
  if (spec.zero && !spec.align) {
    Spec z = spec;
    z.fill = '0';
    z.align = '=';
    return pad(body, z, '>');
  }
  return pad(body, spec, '>');
}

std::string format_int(int64_t v, const Spec& spec) {
  char type = spec.type ? spec.type : 'd';
  uint64_t mag = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  std::string digits;
  const char* prefix = "";
  char buf[72];
  switch (type) {
    case 'd':
    case 'n':
      std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(mag));
      break;
    case 'x':
      std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(mag)), prefix = "0x";
      break;
    case 'X':
      std::snprintf(buf, sizeof buf, "%llX", static_cast<unsigned long long>(mag)), prefix = "0X";
      break;
    case 'o':
      std::snprintf(buf, sizeof buf, "%llo", static_cast<unsigned long long>(mag)), prefix = "0o";
      break;
    case 'b': {
      std::string bits;
      for (uint64_t m = mag; m; m >>= 1)
        bits.insert(bits.begin(), static_cast<char>('0' + (m & 1)));
      if (bits.empty()) bits = "0";
      std::snprintf(buf, sizeof buf, "%s", bits.c_str());
      prefix = "0b";
      break;
    }
    case 'c': {
      std::string s;
      utf8::append(s, static_cast<char32_t>(v));
      return pad(s, spec, '<');
    }
    default:
      throw Failure(std::string("Unknown format code '") + type + "' for object of type 'int'");
  }
  digits = buf;
  if (spec.grouping) digits = group_digits(digits, spec.grouping);
  std::string sign = v < 0 ? "-" : (spec.sign == '+' ? "+" : spec.sign == ' ' ? " " : "");
  std::string body = sign + (spec.alternate ? prefix : "") + digits;
  return pad_number(body, spec);
}

std::string format_float(double v, const Spec& spec) {
  char type = spec.type;
  std::string body;
  if (type == 0 && spec.precision < 0) {
    body = float_repr(v);
  } else {
    char conv = type == 0 ? 'g' : type;
    double x = v;
    bool percent = conv == '%';
    if (percent) {
      x *= 100;
      conv = 'f';
    }
    int precision = spec.precision < 0 ? 6 : spec.precision;
    if (conv != 'f' && conv != 'F' && conv != 'e' && conv != 'E' && conv != 'g' && conv != 'G')
      throw Failure(std::string("Unknown format code '") + type + "' for object of type 'float'");
    char fmt[16];
    std::snprintf(fmt, sizeof fmt, "%%%s.%d%c", spec.alternate ? "#" : "", precision, conv);
    char buf[512];
    std::snprintf(buf, sizeof buf, fmt, x);
    body = buf;
    if (percent) body += '%';
  }
  if (body[0] != '-' && spec.sign != '-') body = std::string(1, spec.sign) + body;
  return pad_number(body, spec);
}

// ---- printf style ----

[[noreturn]] void percent_error(const std::string& message) { throw Failure(message); }

class PercentArgs {
 public:
  explicit PercentArgs(const Value& args) : args_(args) {
    if (args.is_tuple()) items_ = &args.as_sequence().items;
  }
  const Value& next() {
    if (items_) {
      if (index_ >= items_->size()) percent_error("not enough arguments for format string");
      return (*items_)[index_++];
    }
    if (used_single_) percent_error("not enough arguments for format string");
    used_single_ = true;
    return args_;
  }
  const Value& named(const std::string& key) {
    if (!args_.is_mapping()) percent_error("format requires a mapping");
    used_mapping_ = true;
    const Value* v = args_.as_mapping().find(std::string_view(key));
    if (!v) percent_error("KeyError: '" + key + "'");
    return *v;
  }
  void finish() const {
    // Python skips this check when the argument supports [] (a dict, a list, ...): it might
    // have been meant for %(name)s.
    bool subscriptable = args_.is_mapping() || args_.is_undefined() ||
                         (args_.is_sequence() && !args_.is_tuple() &&
                          (args_.is_list() || args_.as_sequence().kind == SeqKind::Range));
    bool leftover =
        items_ ? index_ < items_->size() : (!used_single_ && !used_mapping_ && !subscriptable);
    if (leftover) percent_error("not all arguments converted during string formatting");
  }

 private:
  const Value& args_;
  const ValueList* items_ = nullptr;
  size_t index_ = 0;
  bool used_single_ = false;
  bool used_mapping_ = false;
};

double number_for(const Value& v, char conv) {
  if (v.is_number()) return v.as_double();
  require_defined(v);
  percent_error(std::string("%") + conv + " format: a real number is required, not " +
                type_name(v));
}

}  // namespace

std::string percent_format(Budget& budget, std::string_view fmt, const Value& args,
                           bool escape_args) {
  PercentArgs source(args);
  std::string out;
  for (size_t i = 0; i < fmt.size(); ++i) {
    char c = fmt[i];
    if (c != '%') {
      out += c;
      continue;
    }
    size_t start = i;
    if (++i >= fmt.size()) percent_error("incomplete format");
    const Value* value = nullptr;
    if (fmt[i] == '(') {
      size_t close = fmt.find(')', i);
      if (close == std::string_view::npos) percent_error("incomplete format key");
      value = &source.named(std::string(fmt.substr(i + 1, close - i - 1)));
      i = close + 1;
    }
    Spec spec;
    bool left = false;
    for (; i < fmt.size(); ++i) {
      char f = fmt[i];
      if (f == '-')
        left = true;
      else if (f == '+')
        spec.sign = '+';
      else if (f == ' ' && spec.sign != '+')
        spec.sign = ' ';
      else if (f == '#')
        spec.alternate = true;
      else if (f == '0')
        spec.zero = true;
      else
        break;
    }
    auto read_number = [&](int& target) {
      if (i < fmt.size() && fmt[i] == '*') {
        target = static_cast<int>(int_arg(source.next(), "* wants int"));
        ++i;
        return;
      }
      int n = 0;
      bool any = false;
      while (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9') {
        n = std::min(n * 10 + (fmt[i++] - '0'), 100000);
        any = true;
      }
      if (any) target = n;
    };
    read_number(spec.width);
    if (i < fmt.size() && fmt[i] == '.') {
      ++i;
      spec.precision = 0;
      read_number(spec.precision);
    }
    while (i < fmt.size() && (fmt[i] == 'h' || fmt[i] == 'l' || fmt[i] == 'L')) ++i;
    if (i >= fmt.size()) percent_error("incomplete format");
    char conv = fmt[i];
    if (left) spec.align = '<';
    if (conv == '%' && value == nullptr) {
      out += '%';
      continue;
    }
    const Value& v = value ? *value : source.next();
    std::string piece;
    switch (conv) {
      case 's':
      case 'r':
      case 'a': {
        std::string s = conv == 's' ? py_str(v) : py_repr(v);
        if (escape_args && !(conv == 's' && v.is_markup())) s = html_escape(s);
        if (spec.precision >= 0) {
          std::u32string cps = utf8::to_code_points(s);
          if (cps.size() > static_cast<size_t>(spec.precision))
            s = utf8::from_code_points(
                std::u32string_view(cps).substr(0, static_cast<size_t>(spec.precision)));
        }
        spec.zero = false;
        piece = pad(s, spec, '>');
        break;
      }
      case 'd':
      case 'i':
      case 'u': {
        double d = number_for(v, conv);
        int64_t n = v.is_integral() ? v.as_int() : static_cast<int64_t>(std::trunc(d));
        spec.type = 'd';
        if (spec.zero && spec.align == '<') spec.zero = false;
        piece = format_int(n, spec);
        if (spec.precision > 0) {
          // "%.3d" pads the digits with zeros.
          std::string digits = std::to_string(n < 0 ? -n : n);
          while (digits.size() < static_cast<size_t>(spec.precision)) digits = "0" + digits;
          Spec plain = spec;
          plain.zero = false;
          piece = pad((n < 0              ? "-"
                       : spec.sign != '-' ? std::string(1, spec.sign)
                                          : "") +
                          digits,
                      plain, '>');
        }
        break;
      }
      case 'x':
      case 'X':
      case 'o': {
        if (!v.is_integral()) {
          require_defined(v);
          percent_error(std::string("%") + conv + " format: an integer is required, not " +
                        type_name(v));
        }
        spec.type = conv;
        piece = format_int(v.as_int(), spec);
        break;
      }
      case 'e':
      case 'E':
      case 'f':
      case 'F':
      case 'g':
      case 'G':
        spec.type = conv;
        if (spec.precision < 0) spec.precision = 6;
        piece = format_float(number_for(v, conv), spec);
        break;
      case 'c':
        if (v.is_integral()) {
          spec.type = 'c';
          piece = format_int(v.as_int(), spec);
        } else if (v.is_string() && utf8::length(v.as_string()) == 1) {
          piece = pad(v.as_string(), spec, '>');
        } else {
          percent_error("%c requires int or char");
        }
        break;
      default: {
        char buf[96];
        std::snprintf(buf, sizeof buf, "unsupported format character '%c' (0x%x) at index %zu",
                      conv, static_cast<unsigned char>(conv), i);
        (void)start;
        percent_error(buf);
      }
    }
    budget.string_of(out.size() + piece.size());
    out += piece;
  }
  source.finish();
  return out;
}

// ---- str.format ----

namespace {

Spec parse_spec(std::string_view s) {
  Spec spec;
  size_t i = 0;
  auto is_align = [](char c) { return c == '<' || c == '>' || c == '^' || c == '='; };
  if (s.size() >= 2 && is_align(s[1])) {
    spec.fill = s[0];
    spec.align = s[1];
    i = 2;
  } else if (!s.empty() && is_align(s[0])) {
    spec.align = s[0];
    i = 1;
  }
  if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) spec.sign = s[i++];
  if (i < s.size() && s[i] == '#') spec.alternate = true, ++i;
  if (i < s.size() && s[i] == '0') spec.zero = true, ++i;
  int width = 0;
  bool any = false;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9')
    width = std::min(width * 10 + (s[i++] - '0'), 100000), any = true;
  if (any) spec.width = width;
  if (i < s.size() && (s[i] == ',' || s[i] == '_')) spec.grouping = s[i++];
  if (i < s.size() && s[i] == '.') {
    ++i;
    int p = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') p = std::min(p * 10 + (s[i++] - '0'), 1000);
    spec.precision = p;
  }
  if (i < s.size()) spec.type = s[i++];
  if (i != s.size()) throw Failure("Invalid format specifier '" + std::string(s) + "'");
  return spec;
}

// A field index written in a format string; absurdly long ones saturate (and then are out of
// range for any argument list).
size_t small_index(std::string_view digits) {
  size_t n = 0;
  for (char c : digits) n = std::min<size_t>(n * 10 + static_cast<size_t>(c - '0'), 1u << 30);
  return n;
}

std::string format_value(const Value& v, std::string_view spec_text) {
  if (spec_text.empty()) return py_str(v);
  Spec spec = parse_spec(spec_text);
  if (v.is_integral() && !v.is_bool() &&
      (spec.type == 0 || std::string_view("dnxXobc").find(spec.type) != std::string_view::npos))
    return format_int(v.as_int(), spec);
  if (v.is_number() && !(v.is_bool() && (spec.type == 0 || spec.type == 's'))) {
    if (v.is_integral() && spec.type == 0) return format_int(v.as_int(), spec);
    return format_float(v.as_double(), spec);
  }
  if (spec.type != 0 && spec.type != 's')
    throw Failure(std::string("Unknown format code '") + spec.type + "' for object of type '" +
                  type_name(v) + "'");
  std::string s = py_str(v);
  if (spec.precision >= 0) {
    std::u32string cps = utf8::to_code_points(s);
    if (cps.size() > static_cast<size_t>(spec.precision))
      s = utf8::from_code_points(
          std::u32string_view(cps).substr(0, static_cast<size_t>(spec.precision)));
  }
  return pad(s, spec, '<');
}

}  // namespace

std::string brace_format(Budget& budget, std::string_view fmt, const CallArgs& args,
                         bool escape_args) {
  std::string out;
  size_t auto_index = 0;
  for (size_t i = 0; i < fmt.size(); ++i) {
    char c = fmt[i];
    if (c == '}') {
      if (i + 1 < fmt.size() && fmt[i + 1] == '}') {
        out += '}';
        ++i;
        continue;
      }
      throw Failure("Single '}' encountered in format string");
    }
    if (c != '{') {
      out += c;
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '{') {
      out += '{';
      ++i;
      continue;
    }
    size_t close = fmt.find('}', i);
    if (close == std::string_view::npos) throw Failure("Single '{' encountered in format string");
    std::string_view field = fmt.substr(i + 1, close - i - 1);
    i = close;
    std::string_view spec;
    char conversion = 0;
    if (size_t colon = field.find(':'); colon != std::string_view::npos) {
      spec = field.substr(colon + 1);
      field = field.substr(0, colon);
    }
    if (size_t bang = field.find('!'); bang != std::string_view::npos) {
      if (bang + 2 != field.size()) throw Failure("expected ':' after conversion specifier");
      conversion = field[bang + 1];
      field = field.substr(0, bang);
    }
    size_t name_end = std::min(field.find('.'), field.find('['));
    std::string_view head = field.substr(0, name_end);
    Value v;
    if (head.empty()) {
      if (auto_index >= args.positional.size())
        throw Failure("Replacement index " + std::to_string(auto_index) +
                      " out of range for positional args tuple");
      v = args.positional[auto_index++];
    } else if (head.find_first_not_of("0123456789") == std::string_view::npos) {
      size_t index = small_index(head);
      if (index >= args.positional.size())
        throw Failure("Replacement index " + std::string(head) +
                      " out of range for positional args tuple");
      v = args.positional[index];
    } else {
      const Value* found = nullptr;
      for (const auto& [k, val] : args.named)
        if (k == head) found = &val;
      if (!found) throw Failure("KeyError: '" + std::string(head) + "'");
      v = *found;
    }
    // .attr and [key] parts
    std::string_view rest =
        name_end == std::string_view::npos ? std::string_view() : field.substr(name_end);
    while (!rest.empty()) {
      if (rest[0] == '.') {
        size_t end = std::min(rest.find('.', 1), rest.find('[', 1));
        v = get_attribute(
            v, rest.substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1));
        rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
      } else {
        size_t end = rest.find(']');
        if (end == std::string_view::npos) throw Failure("Missing ']' in format string");
        std::string_view key = rest.substr(1, end - 1);
        if (!key.empty() && key.find_first_not_of("0123456789") == std::string_view::npos)
          v = get_item(v, Value(static_cast<int64_t>(small_index(key))));
        else
          v = get_item(v, Value(std::string(key)));
        rest = rest.substr(end + 1);
      }
      require_defined(v);
    }
    if (conversion == 'r' || conversion == 'a')
      v = Value(py_repr(v));
    else if (conversion == 's')
      v = Value(py_str(v));
    else if (conversion != 0)
      throw Failure(std::string("Unknown conversion specifier ") + conversion);
    std::string piece = format_value(v, spec);
    if (escape_args && !v.is_markup()) piece = html_escape(piece);
    budget.string_of(out.size() + piece.size());
    out += piece;
  }
  return out;
}

}  // namespace zen::tmpl
