#include "py_format.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "error.h"
#include "utf8.h"

namespace zen::tmpl {
namespace {

void append_hex(std::string& out, char prefix, uint32_t value, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "\\%c%0*x", prefix, digits, value);
  out += buf;
}

void repr_into(std::string& out, const Value& v, uint32_t depth);

void repr_items(std::string& out, const ValueList& items, uint32_t depth) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    repr_into(out, items[i], depth + 1);
  }
}

void repr_into(std::string& out, const Value& v, uint32_t depth) {
  // Namespaces can contain themselves; everything else is depth-bounded when built.
  if (depth > kMaxValueDepth) throw Failure("value nested too deeply to print", ErrorKind::Limit);
  switch (v.kind()) {
    case Value::Kind::Undefined:
      out += "Undefined";
      return;
    case Value::Kind::String:
      if (v.is_markup()) {
        out += "Markup(" + string_repr(v.as_string()) + ")";
      } else {
        out += string_repr(v.as_string());
      }
      return;
    case Value::Kind::Sequence: {
      const Sequence& s = v.as_sequence();
      switch (s.kind) {
        case SeqKind::List:
          out += '[';
          repr_items(out, s.items, depth);
          out += ']';
          return;
        case SeqKind::Tuple:
          out += '(';
          repr_items(out, s.items, depth);
          if (s.items.size() == 1) out += ',';
          out += ')';
          return;
        case SeqKind::Range:
          out += "range(" + std::to_string(s.range_start) + ", " + std::to_string(s.range_stop);
          if (s.range_step != 1) out += ", " + std::to_string(s.range_step);
          out += ')';
          return;
        case SeqKind::DictKeys:
        case SeqKind::DictValues:
        case SeqKind::DictItems:
          out += type_name(v) + "([";
          repr_items(out, s.items, depth);
          out += "])";
          return;
      }
      return;
    }
    case Value::Kind::Mapping: {
      out += '{';
      bool first = true;
      for (const auto& [k, item] : v.as_mapping().entries()) {
        if (!first) out += ", ";
        first = false;
        repr_into(out, k, depth + 1);
        out += ": ";
        repr_into(out, item, depth + 1);
      }
      out += '}';
      return;
    }
    case Value::Kind::Generator:
      out += "<generator object>";
      return;
    case Value::Kind::Object:
      out += v.as_object().repr(depth);
      return;
    default:
      out += py_str(v);
      return;
  }
}

}  // namespace

std::string float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  if (d == 0) return std::signbit(d) ? "-0.0" : "0.0";
  // Shortest round-trip digits in scientific form, e.g. "-1.2345e+16".
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  bool negative = sci[0] == '-';
  size_t pos_e = sci.find('e');
  std::string mantissa = sci.substr(negative ? 1 : 0, pos_e - (negative ? 1 : 0));
  int exponent = std::stoi(sci.substr(pos_e + 1));
  std::string digits;
  for (char c : mantissa)
    if (c != '.') digits += c;
  int decpt = exponent + 1;  // value = 0.DIGITS * 10^decpt
  std::string out = negative ? "-" : "";
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out += "0." + std::string(static_cast<size_t>(-decpt), '0') + digits;
    } else if (static_cast<size_t>(decpt) >= digits.size()) {
      out += digits + std::string(static_cast<size_t>(decpt) - digits.size(), '0') + ".0";
    } else {
      out += digits.substr(0, static_cast<size_t>(decpt)) + "." +
             digits.substr(static_cast<size_t>(decpt));
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  int e = decpt - 1;
  char exp[16];
  std::snprintf(exp, sizeof exp, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
  return out + exp;
}

std::string string_repr(std::string_view s) {
  bool has_single = s.find('\'') != std::string_view::npos;
  bool has_double = s.find('"') != std::string_view::npos;
  char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  for (size_t i = 0; i < s.size();) {
    utf8::Decoded d = utf8::decode(s, i);
    char32_t c = d.code_point;
    if (c == static_cast<char32_t>(quote) || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (utf8::is_printable(c) || c == ' ') {
      out.append(s.substr(i, d.length));
    } else if (c < 0x100) {
      append_hex(out, 'x', c, 2);
    } else if (c < 0x10000) {
      append_hex(out, 'u', c, 4);
    } else {
      append_hex(out, 'U', c, 8);
    }
    i += d.length;
  }
  out += quote;
  return out;
}

std::string py_str(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::Undefined:
      return "";
    case Value::Kind::None:
      return "None";
    case Value::Kind::Bool:
      return v.as_bool() ? "True" : "False";
    case Value::Kind::Int:
      return std::to_string(v.as_int());
    case Value::Kind::Float:
      return float_repr(v.as_double());
    case Value::Kind::String:
      return v.as_string();
    default:
      return py_repr(v);
  }
}

std::string py_repr(const Value& v) { return py_repr(v, 0); }

std::string py_repr(const Value& v, uint32_t depth) {
  std::string out;
  repr_into(out, v, depth);
  return out;
}

}  // namespace zen::tmpl
