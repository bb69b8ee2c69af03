#include "methods.h"

#include <algorithm>
#include <array>

#include "args.h"
#include "error.h"
#include "format.h"
#include "markup.h"
#include "py_format.h"
#include "utf8.h"

namespace zen::tmpl {
namespace {

// Every attribute Python's str has, so `s.encode is defined` answers as in Python; the ones
// not implemented fail when called.
constexpr std::array<std::string_view, 47> kStrMethods = {
    "capitalize",   "casefold",    "center",    "count",      "encode",       "endswith",
    "expandtabs",   "find",        "format",    "format_map", "index",        "isalnum",
    "isalpha",      "isascii",     "isdecimal", "isdigit",    "isidentifier", "islower",
    "isnumeric",    "isprintable", "isspace",   "istitle",    "isupper",      "join",
    "ljust",        "lower",       "lstrip",    "maketrans",  "partition",    "removeprefix",
    "removesuffix", "replace",     "rfind",     "rindex",     "rjust",        "rpartition",
    "rsplit",       "rstrip",      "split",     "splitlines", "startswith",   "strip",
    "swapcase",     "title",       "translate", "upper",      "zfill"};
constexpr std::array<std::string_view, 5> kDictSafe = {"copy", "fromkeys", "get", "items", "keys"};
constexpr std::array<std::string_view, 1> kDictSafe2 = {"values"};
constexpr std::array<std::string_view, 5> kDictUnsafe = {"clear", "pop", "popitem", "setdefault",
                                                         "update"};
constexpr std::array<std::string_view, 3> kListSafe = {"copy", "count", "index"};
constexpr std::array<std::string_view, 8> kListUnsafe = {"append", "clear",  "extend",  "insert",
                                                         "pop",    "remove", "reverse", "sort"};
constexpr std::array<std::string_view, 2> kTupleSafe = {"count", "index"};

template <size_t N>
bool in(const std::array<std::string_view, N>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

[[noreturn]] void not_supported(const Value& self, std::string_view name) {
  throw Failure(type_name(self) + "." + std::string(name) + "() is not supported in templates");
}

// Code-point view of a string, with byte offsets, for index-based methods.
struct Chars {
  explicit Chars(std::string_view s) : cps(utf8::to_code_points(s)) {}
  std::u32string cps;
  std::string slice(size_t b, size_t e) const {
    return utf8::from_code_points(std::u32string_view(cps).substr(b, e - b));
  }
};

// Python's optional start/end arguments of find/count/startswith, clamped like slicing.
void bounds(const ArgReader& a, size_t first, size_t length, size_t& begin, size_t& end) {
  auto clamp = [&](const Value* v, size_t dflt) -> size_t {
    if (!v || v->is_none()) return dflt;
    int64_t i = int_arg(*v, "slice index");
    auto len = static_cast<int64_t>(length);
    if (i < 0) i = std::max<int64_t>(0, i + len);
    return static_cast<size_t>(std::min(i, len));
  };
  begin = clamp(a.get(first), 0);
  end = clamp(a.get(first + 1), length);
}

int64_t find_in(std::u32string_view hay, std::u32string_view needle, size_t begin, size_t end,
                bool from_right) {
  if (begin > end || needle.size() > end - begin) return -1;
  std::u32string_view window = hay.substr(begin, end - begin);
  size_t at = from_right ? window.rfind(needle) : window.find(needle);
  return at == std::u32string_view::npos ? -1 : static_cast<int64_t>(begin + at);
}

bool affix_matches(const Value& affix, const std::u32string& s, size_t begin, size_t end,
                   bool prefix, std::string_view method) {
  auto one = [&](const Value& v) {
    std::u32string a = utf8::to_code_points(string_arg(v, method));
    if (begin > end || a.size() > end - begin) return false;
    return prefix ? s.compare(begin, a.size(), a) == 0
                  : s.compare(end - a.size(), a.size(), a) == 0;
  };
  if (affix.is_tuple()) {
    for (const Value& v : affix.as_sequence().items)
      if (one(v)) return true;
    return false;
  }
  return one(affix);
}

std::string pad_to(std::string_view s, const ArgReader& a, char how, std::string_view method) {
  int64_t width = int_arg(a.get_or(0, Value(0)), method);
  std::string fill = a.has(1) ? string_arg(*a.get(1), method) : " ";
  if (utf8::length(fill) != 1)
    throw Failure("The fill character must be exactly one character long");
  size_t len = utf8::length(s);
  if (width <= 0 || static_cast<size_t>(width) <= len) return std::string(s);
  size_t n = static_cast<size_t>(width) - len;
  size_t left = how == 'l' ? 0 : how == 'r' ? n : n / 2 + (n & static_cast<size_t>(width) & 1);
  std::string out;
  for (size_t i = 0; i < left; ++i) out += fill;
  out += s;
  for (size_t i = left; i < n; ++i) out += fill;
  return out;
}

std::string py_title(std::string_view s) {
  std::string out;
  bool prev_cased = false;
  for (size_t i = 0; i < s.size();) {
    utf8::Decoded d = utf8::decode(s, i);
    i += d.length;
    char32_t c = d.code_point;
    utf8::append(out, prev_cased ? utf8::to_lower(c) : utf8::to_upper(c));
    prev_cased = utf8::is_upper(c) || utf8::is_lower(c);
  }
  return out;
}

bool all_chars(std::string_view s, bool (*pred)(char32_t)) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size();) {
    utf8::Decoded d = utf8::decode(s, i);
    if (!pred(d.code_point)) return false;
    i += d.length;
  }
  return true;
}

std::string replace_all(Budget& budget, std::string_view s, std::string_view old,
                        std::string_view repl, int64_t count) {
  std::string out;
  if (count < 0) count = INT64_MAX;
  if (old.empty()) {
    // Python inserts the replacement before every character and at the end.
    int64_t done = 0;
    for (size_t i = 0; i < s.size();) {
      if (done < count) out += repl, ++done;
      size_t n = utf8::decode(s, i).length;
      out.append(s.substr(i, n));
      i += n;
      budget.string_of(out.size());
    }
    if (done < count) out += repl;
    budget.string_of(out.size());
    return out;
  }
  size_t pos = 0;
  int64_t done = 0;
  while (done < count) {
    size_t at = s.find(old, pos);
    if (at == std::string_view::npos) break;
    out.append(s.substr(pos, at - pos));
    out.append(repl);
    pos = at + old.size();
    ++done;
    budget.string_of(out.size());
  }
  out.append(s.substr(pos));
  budget.string_of(out.size());
  return out;
}

Value string_method(Budget& budget, const Value& self, std::string_view name,
                    const CallArgs& args) {
  const std::string& s = self.as_string();
  std::string method = "str." + std::string(name);
  if (name == "format") return Value(brace_format(budget, s, args, self.is_markup()));
  if (name == "upper" || name == "lower" || name == "casefold" || name == "title" ||
      name == "capitalize" || name == "swapcase" || name == "isalnum" || name == "isalpha" ||
      name == "isascii" || name == "isdecimal" || name == "isdigit" || name == "isnumeric" ||
      name == "islower" || name == "isupper" || name == "isspace") {
    ArgReader a(method, args, {});
    if (name == "upper") return Value(utf8::upper(s));
    if (name == "lower" || name == "casefold") return Value(utf8::lower(s));
    if (name == "title") return Value(py_title(s));
    if (name == "capitalize") {
      std::u32string cps = utf8::to_code_points(s);
      for (size_t i = 0; i < cps.size(); ++i)
        cps[i] = i == 0 ? utf8::to_upper(cps[i]) : utf8::to_lower(cps[i]);
      return Value(utf8::from_code_points(cps));
    }
    if (name == "swapcase") {
      std::u32string cps = utf8::to_code_points(s);
      for (char32_t& c : cps)
        c = utf8::is_upper(c) ? utf8::to_lower(c) : utf8::is_lower(c) ? utf8::to_upper(c) : c;
      return Value(utf8::from_code_points(cps));
    }
    if (name == "isalnum") return Value(all_chars(s, utf8::is_alnum));
    if (name == "isalpha") return Value(all_chars(s, utf8::is_alpha));
    if (name == "isascii") return Value(utf8::is_ascii(s));
    if (name == "isdecimal" || name == "isdigit" || name == "isnumeric")
      return Value(all_chars(s, utf8::is_digit));
    if (name == "isspace") return Value(all_chars(s, utf8::is_space));
    return Value(utf8::is_single_case(s, name == "isupper"));
  }
  if (name == "strip" || name == "lstrip" || name == "rstrip") {
    ArgReader a(method, args, {"chars"});
    bool left = name != "rstrip", right = name != "lstrip";
    const Value* chars = a.get(0);
    if (!chars || chars->is_none()) return Value(std::string(utf8::strip(s, left, right)));
    return Value(utf8::strip_chars(s, string_arg(*chars, method), left, right));
  }
  if (name == "split" || name == "rsplit") {
    ArgReader a(method, args, {"sep", "maxsplit"});
    int64_t maxsplit = int_arg(a.get_or(1, Value(-1)), method);
    ValueList parts = split_string(s, a.get_or(0, Value::none()), maxsplit, name == "rsplit");
    budget.items(parts.size());
    return Value::list(std::move(parts));
  }
  if (name == "splitlines") {
    ArgReader a(method, args, {"keepends"});
    ValueList parts = split_lines(s, truthy(a.get_or(0, Value(false))));
    budget.items(parts.size());
    return Value::list(std::move(parts));
  }
  if (name == "startswith" || name == "endswith") {
    ArgReader a(method, args, {"prefix", "start", "end"});
    if (!a.has(0)) throw Failure(method + "() takes at least 1 argument (0 given)");
    std::u32string cps = utf8::to_code_points(s);
    size_t begin, end;
    bounds(a, 1, cps.size(), begin, end);
    return Value(affix_matches(*a.get(0), cps, begin, end, name == "startswith", method));
  }
  if (name == "find" || name == "rfind" || name == "index" || name == "rindex" || name == "count") {
    ArgReader a(method, args, {"sub", "start", "end"});
    if (!a.has(0)) throw Failure(method + "() takes at least 1 argument (0 given)");
    std::u32string needle = utf8::to_code_points(string_arg(*a.get(0), method));
    Chars hay(s);
    size_t begin, end;
    bounds(a, 1, hay.cps.size(), begin, end);
    if (name == "count") {
      if (begin > end) return Value(0);
      if (needle.empty()) return Value(static_cast<int64_t>(end - begin + 1));
      int64_t n = 0;
      for (int64_t at = find_in(hay.cps, needle, begin, end, false); at >= 0;
           at = find_in(hay.cps, needle, static_cast<size_t>(at) + needle.size(), end, false))
        ++n;
      return Value(n);
    }
    bool right = name[0] == 'r';
    int64_t at = find_in(hay.cps, needle, begin, end, right);
    if (at < 0 && (name == "index" || name == "rindex")) throw Failure("substring not found");
    return Value(at);
  }
  if (name == "replace") {
    ArgReader a(method, args, {"old", "new", "count"});
    if (!a.has(0) || !a.has(1)) throw Failure(method + "() takes at least 2 arguments");
    return Value(replace_all(budget, s, string_arg(*a.get(0), method),
                             string_arg(*a.get(1), method),
                             int_arg(a.get_or(2, Value(-1)), method)));
  }
  if (name == "join") {
    ArgReader a(method, args, {"iterable"});
    if (!a.has(0)) throw Failure(method + "() takes exactly one argument (0 given)");
    ValueList items = iterate(*a.get(0));
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) {
      if (self.is_markup()) {  // Markup.join escapes the items instead of refusing them
        if (i) out += s;
        out += escaped_text(items[i]);
        budget.string_of(out.size());
        continue;
      }
      if (!items[i].is_string())
        throw Failure("sequence item " + std::to_string(i) + ": expected str instance, " +
                      type_name(items[i]) + " found");
      if (i) out += s;
      out += items[i].as_string();
      budget.string_of(out.size());
    }
    return Value(std::move(out));
  }
  if (name == "center" || name == "ljust" || name == "rjust") {
    ArgReader a(method, args, {"width", "fillchar"});
    if (!a.has(0)) throw Failure(method + "() takes at least 1 argument (0 given)");
    budget.string_of(static_cast<size_t>(std::max<int64_t>(0, int_arg(*a.get(0), method))));
    return Value(pad_to(s, a, name == "center" ? 'c' : name == "ljust" ? 'l' : 'r', method));
  }
  if (name == "zfill") {
    ArgReader a(method, args, {"width"});
    int64_t width = int_arg(a.get_or(0, Value(0)), method);
    budget.string_of(static_cast<size_t>(std::max<int64_t>(0, width)));
    size_t len = utf8::length(s);
    if (width <= 0 || static_cast<size_t>(width) <= len) return self;
    size_t sign = !s.empty() && (s[0] == '+' || s[0] == '-') ? 1 : 0;
    return Value(s.substr(0, sign) + std::string(static_cast<size_t>(width) - len, '0') +
                 s.substr(sign));
  }
  if (name == "partition" || name == "rpartition") {
    ArgReader a(method, args, {"sep"});
    if (!a.has(0)) throw Failure(method + "() takes exactly one argument (0 given)");
    const std::string& sep = string_arg(*a.get(0), method);
    if (sep.empty()) throw Failure("empty separator");
    size_t at = name == "partition" ? s.find(sep) : s.rfind(sep);
    if (at == std::string::npos) {
      if (name == "partition") return Value::tuple({Value(s), Value(""), Value("")});
      return Value::tuple({Value(""), Value(""), Value(s)});
    }
    return Value::tuple({Value(s.substr(0, at)), Value(sep), Value(s.substr(at + sep.size()))});
  }
  if (name == "removeprefix" || name == "removesuffix") {
    ArgReader a(method, args, {"affix"});
    if (!a.has(0)) throw Failure(method + "() takes exactly one argument (0 given)");
    const std::string& affix = string_arg(*a.get(0), method);
    if (name == "removeprefix")
      return Value(s.compare(0, affix.size(), affix) == 0 ? s.substr(affix.size()) : s);
    if (s.size() >= affix.size() && s.compare(s.size() - affix.size(), affix.size(), affix) == 0)
      return Value(s.substr(0, s.size() - affix.size()));
    return self;
  }
  not_supported(self, name);
}

Value mapping_method(Budget& budget, const Value& self, std::string_view name,
                     const CallArgs& args) {
  const Mapping& m = self.as_mapping();
  std::string method = "dict." + std::string(name);
  if (name == "get") {
    ArgReader a(method, args, {"key", "default"});
    if (!a.has(0)) throw Failure("get expected at least 1 argument, got 0");
    if (!hashable(*a.get(0))) throw Failure("unhashable type: '" + type_name(*a.get(0)) + "'");
    const Value* v = m.find(*a.get(0));
    return v ? *v : a.get_or(1, Value::none());
  }
  ArgReader a(method, args, {});
  budget.items(m.size());
  if (name == "copy") return self;
  ValueList out;
  out.reserve(m.size());
  for (const auto& [k, v] : m.entries()) {
    if (name == "keys")
      out.push_back(k);
    else if (name == "values")
      out.push_back(v);
    else if (name == "items")
      out.push_back(Value::tuple({k, v}));
  }
  if (name == "keys") return Value::sequence(SeqKind::DictKeys, std::move(out));
  if (name == "values") return Value::sequence(SeqKind::DictValues, std::move(out));
  if (name == "items") return Value::sequence(SeqKind::DictItems, std::move(out));
  not_supported(self, name);
}

Value sequence_method(Budget& budget, const Value& self, std::string_view name,
                      const CallArgs& args) {
  const ValueList& items = self.as_sequence().items;
  std::string method = type_name(self) + "." + std::string(name);
  if (name == "copy") {
    ArgReader a(method, args, {});
    budget.items(items.size());
    return Value::list(items);
  }
  ArgReader a(method, args, {"value"});
  if (!a.has(0)) throw Failure(method + "() takes exactly one argument (0 given)");
  if (name == "count")
    return Value(static_cast<int64_t>(std::count_if(
        items.begin(), items.end(), [&](const Value& v) { return equals(v, *a.get(0)); })));
  if (name == "index") {
    for (size_t i = 0; i < items.size(); ++i)
      if (equals(items[i], *a.get(0))) return Value(static_cast<int64_t>(i));
    throw Failure(py_repr(*a.get(0)) + " is not in " + type_name(self));
  }
  not_supported(self, name);
}

}  // namespace

MethodSafety method_safety(const Value& self, std::string_view name) {
  switch (self.kind()) {
    case Value::Kind::String:
      return in(kStrMethods, name) ? MethodSafety::Safe : MethodSafety::Missing;
    case Value::Kind::Mapping:
      if (in(kDictSafe, name) || in(kDictSafe2, name)) return MethodSafety::Safe;
      return in(kDictUnsafe, name) ? MethodSafety::Unsafe : MethodSafety::Missing;
    case Value::Kind::Sequence:
      switch (self.as_sequence().kind) {
        case SeqKind::List:
          if (in(kListSafe, name)) return MethodSafety::Safe;
          return in(kListUnsafe, name) ? MethodSafety::Unsafe : MethodSafety::Missing;
        case SeqKind::Tuple:
        case SeqKind::Range:
          return in(kTupleSafe, name) ? MethodSafety::Safe : MethodSafety::Missing;
        default:
          return MethodSafety::Missing;
      }
    default:
      return MethodSafety::Missing;
  }
}

// Markup's methods return markup and escape the text they insert.
Value markup_method(Budget& budget, const Value& self, std::string_view name,
                    const CallArgs& args) {
  static constexpr std::string_view kMarkupResults[] = {
      "capitalize", "title",    "lower",        "upper",        "replace",   "ljust",
      "rjust",      "lstrip",   "rstrip",       "center",       "strip",     "swapcase",
      "zfill",      "casefold", "removeprefix", "removesuffix", "partition", "rpartition",
      "format",     "join",     "split",        "rsplit",       "splitlines"};
  CallArgs escaped = args;
  size_t inserted = name == "replace"                                          ? 1
                    : (name == "ljust" || name == "rjust" || name == "center") ? 1
                                                                               : SIZE_MAX;
  if (inserted < escaped.positional.size() && escaped.positional[inserted].is_string())
    escaped.positional[inserted] = Value(escaped_text(escaped.positional[inserted]));
  Value result = string_method(budget, self, name, escaped);
  if (std::find(std::begin(kMarkupResults), std::end(kMarkupResults), name) ==
      std::end(kMarkupResults))
    return result;
  if (result.is_string()) return Value::markup(result.as_string());
  if (result.is_sequence()) {
    ValueList items;
    for (const Value& item : result.as_sequence().items)
      items.push_back(item.is_string() ? Value::markup(item.as_string()) : item);
    return Value::sequence(result.as_sequence().kind, std::move(items));
  }
  return result;
}

Value call_method(Budget& budget, const Value& self, std::string_view name, const CallArgs& args) {
  switch (self.kind()) {
    case Value::Kind::String:
      if (self.is_markup()) return markup_method(budget, self, name, args);
      return string_method(budget, self, name, args);
    case Value::Kind::Mapping:
      return mapping_method(budget, self, name, args);
    case Value::Kind::Sequence:
      return sequence_method(budget, self, name, args);
    default:
      not_supported(self, name);
  }
}

ValueList split_string(std::string_view s, const Value& sep_v, int64_t maxsplit, bool from_right) {
  ValueList out;
  if (maxsplit < 0) maxsplit = INT64_MAX;
  if (sep_v.is_none() || sep_v.is_undefined()) {
    // Runs of whitespace separate; leading and trailing whitespace is dropped.
    std::u32string cps = utf8::to_code_points(s);
    std::vector<std::pair<size_t, size_t>> words;
    if (!from_right) {
      size_t i = 0, n = cps.size();
      while (true) {
        while (i < n && utf8::is_space(cps[i])) ++i;
        if (i >= n) break;
        if (static_cast<int64_t>(words.size()) == maxsplit) {
          size_t end = n;
          while (end > i && utf8::is_space(cps[end - 1])) --end;
          words.emplace_back(i, end);
          break;
        }
        size_t j = i;
        while (j < n && !utf8::is_space(cps[j])) ++j;
        words.emplace_back(i, j);
        i = j;
      }
    } else {
      size_t i = cps.size();
      while (true) {
        while (i > 0 && utf8::is_space(cps[i - 1])) --i;
        if (i == 0) break;
        if (static_cast<int64_t>(words.size()) == maxsplit) {
          size_t begin = 0;
          while (begin < i && utf8::is_space(cps[begin])) ++begin;
          words.emplace_back(begin, i);
          break;
        }
        size_t j = i;
        while (j > 0 && !utf8::is_space(cps[j - 1])) --j;
        words.emplace_back(j, i);
        i = j;
      }
      std::reverse(words.begin(), words.end());
    }
    for (auto [b, e] : words)
      out.emplace_back(utf8::from_code_points(std::u32string_view(cps).substr(b, e - b)));
    return out;
  }
  const std::string& sep = string_arg(sep_v, "separator");
  if (sep.empty()) throw Failure("empty separator");
  std::vector<std::string_view> parts;
  if (!from_right) {
    size_t pos = 0;
    int64_t done = 0;
    while (done < maxsplit) {
      size_t at = s.find(sep, pos);
      if (at == std::string_view::npos) break;
      parts.push_back(s.substr(pos, at - pos));
      pos = at + sep.size();
      ++done;
    }
    parts.push_back(s.substr(pos));
  } else {
    size_t end = s.size();
    int64_t done = 0;
    while (done < maxsplit && end >= sep.size()) {
      size_t at = s.rfind(sep, end - sep.size());
      if (at == std::string_view::npos) break;
      parts.push_back(s.substr(at + sep.size(), end - at - sep.size()));
      end = at;
      ++done;
    }
    parts.push_back(s.substr(0, end));
    std::reverse(parts.begin(), parts.end());
  }
  for (std::string_view p : parts) out.emplace_back(std::string(p));
  return out;
}

ValueList split_lines(std::string_view s, bool keep_ends) {
  ValueList out;
  size_t start = 0;
  for (size_t i = 0; i < s.size();) {
    utf8::Decoded d = utf8::decode(s, i);
    char32_t c = d.code_point;
    bool boundary = c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || c == 0x1C || c == 0x1D ||
                    c == 0x1E || c == 0x85 || c == 0x2028 || c == 0x2029;
    if (!boundary) {
      i += d.length;
      continue;
    }
    size_t end = i;
    i += d.length;
    if (c == '\r' && i < s.size() && s[i] == '\n') ++i;
    out.emplace_back(std::string(s.substr(start, (keep_ends ? i : end) - start)));
    start = i;
  }
  if (start < s.size()) out.emplace_back(std::string(s.substr(start)));
  return out;
}

}  // namespace zen::tmpl
