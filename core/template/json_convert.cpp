#include "json_convert.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "error.h"
#include "py_format.h"
#include "utf8.h"

namespace zen::tmpl {
namespace {

Value from_json_at(const Json& j, uint32_t depth) {
  if (depth > kMaxValueDepth)
    throw Failure("JSON input nested deeper than " + std::to_string(kMaxValueDepth) + " levels",
                  ErrorKind::Limit);
  switch (j.type()) {
    case Json::value_t::null:
      return Value::none();
    case Json::value_t::boolean:
      return Value(j.get<bool>());
    case Json::value_t::number_integer:
      return Value(j.get<int64_t>());
    case Json::value_t::number_unsigned: {
      auto u = j.get<uint64_t>();
      if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        throw Failure("JSON integer " + std::to_string(u) + " is too large (limit 2^63-1)");
      return Value(static_cast<int64_t>(u));
    }
    case Json::value_t::number_float:
      return Value(j.get<double>());
    case Json::value_t::string:
      return Value(j.get_ref<const std::string&>());
    case Json::value_t::array: {
      ValueList items;
      items.reserve(j.size());
      for (const Json& item : j) items.push_back(from_json_at(item, depth + 1));
      return Value::list(std::move(items));
    }
    case Json::value_t::object: {
      Mapping m;
      for (const auto& [key, item] : j.items()) m.set(Value(key), from_json_at(item, depth + 1));
      return Value::mapping(std::move(m));
    }
    default:
      throw Failure("unsupported JSON value (binary) in template input");
  }
}

class Dumper {
 public:
  explicit Dumper(const JsonDumpOptions& o) : o_(o) {
    item_sep_ = o.item_separator.value_or(o.indent ? "," : ", ");
    key_sep_ = o.key_separator.value_or(": ");
  }

  void dump(const Value& v, uint32_t level) {
    if (level > kMaxValueDepth)
      throw Failure("value nested too deeply for tojson", ErrorKind::Limit);
    switch (v.kind()) {
      case Value::Kind::None:
        out += "null";
        return;
      case Value::Kind::Bool:
        out += v.as_bool() ? "true" : "false";
        return;
      case Value::Kind::Int:
        out += std::to_string(v.as_int());
        return;
      case Value::Kind::Float:
        out += float_text(v.as_double());
        return;
      case Value::Kind::String:
        string(v.as_string());
        return;
      case Value::Kind::Sequence:
        if (v.is_list() || v.is_tuple()) {
          array(v.as_sequence().items, level);
          return;
        }
        break;
      case Value::Kind::Mapping:
        object(v.as_mapping(), level);
        return;
      default:
        break;
    }
    throw Failure("Object of type " + type_name(v) + " is not JSON serializable");
  }

  std::string out;

 private:
  static std::string float_text(double d) {
    if (d != d) return "NaN";
    if (d == std::numeric_limits<double>::infinity()) return "Infinity";
    if (d == -std::numeric_limits<double>::infinity()) return "-Infinity";
    return float_repr(d);
  }

  void newline(uint32_t level) {
    if (!o_.indent) return;
    out += '\n';
    for (uint32_t i = 0; i < level; ++i) out += *o_.indent;
  }

  void array(const ValueList& items, uint32_t level) {
    if (items.empty()) {
      out += "[]";
      return;
    }
    out += '[';
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) out += item_sep_;
      newline(level + 1);
      dump(items[i], level + 1);
    }
    newline(level);
    out += ']';
  }

  std::string key_text(const Value& k) {
    switch (k.kind()) {
      case Value::Kind::String:
        return k.as_string();
      case Value::Kind::None:
        return "null";
      case Value::Kind::Bool:
        return k.as_bool() ? "true" : "false";
      case Value::Kind::Int:
        return std::to_string(k.as_int());
      case Value::Kind::Float:
        return float_text(k.as_double());
      default:
        throw Failure("keys must be str, int, float, bool or None, not " + type_name(k));
    }
  }

  void object(const Mapping& m, uint32_t level) {
    if (m.size() == 0) {
      out += "{}";
      return;
    }
    std::vector<const std::pair<Value, Value>*> entries;
    for (const auto& e : m.entries()) entries.push_back(&e);
    if (o_.sort_keys)
      std::stable_sort(entries.begin(), entries.end(),
                       [](auto* a, auto* b) { return less(a->first, b->first); });
    out += '{';
    for (size_t i = 0; i < entries.size(); ++i) {
      if (i) out += item_sep_;
      newline(level + 1);
      string(key_text(entries[i]->first));
      out += key_sep_;
      dump(entries[i]->second, level + 1);
    }
    newline(level);
    out += '}';
  }

  void escape_unit(uint32_t u) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "\\u%04x", u & 0xFFFF);
    out += buf;
  }

  void string(std::string_view s) {
    out += '"';
    for (size_t i = 0; i < s.size();) {
      utf8::Decoded d = utf8::decode(s, i);
      char32_t c = d.code_point;
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        default:
          if (c < 0x20 || (o_.ensure_ascii && c >= 0x7F)) {
            if (c >= 0x10000) {
              char32_t v = c - 0x10000;
              escape_unit(0xD800 + (v >> 10));
              escape_unit(0xDC00 + (v & 0x3FF));
            } else {
              escape_unit(c);
            }
          } else {
            out.append(s.substr(i, d.length));
          }
      }
      i += d.length;
    }
    out += '"';
  }

  const JsonDumpOptions& o_;
  std::string item_sep_, key_sep_;
};

}  // namespace

Value from_json(const Json& j) { return from_json_at(j, 0); }

std::string json_dumps(const Value& v, const JsonDumpOptions& options) {
  Dumper d(options);
  d.dump(v, 0);
  return std::move(d.out);
}

}  // namespace zen::tmpl
