// String filters: case, trimming, indentation, escaping, formatting, truncation.
#include "filters_impl.h"

#include "args.h"
#include "error.h"
#include "format.h"
#include "interpreter.h"
#include "markup.h"
#include "methods.h"
#include "py_format.h"
#include "utf8.h"

namespace zen::tmpl::filters {

Value f_capitalize(Interpreter&, const Value& v, const CallArgs& args) {
  ArgReader a("capitalize", args, {});
  std::u32string cps = utf8::to_code_points(soft_str(v));
  for (size_t i = 0; i < cps.size(); ++i)
    cps[i] = i == 0 ? utf8::to_upper(cps[i]) : utf8::to_lower(cps[i]);
  return like(v, utf8::from_code_points(cps));
}

Value f_center(Interpreter& interp, const Value& v, const CallArgs& args) {
  ArgReader a("center", args, {"width"});
  CallArgs inner;
  inner.positional.push_back(a.get_or(0, Value(80)));
  return call_method(interp.budget(), v.is_markup() ? v : Value(soft_str(v)), "center", inner);
}

Value f_escape(Interpreter& interp, const Value& v, const CallArgs& args) {
  ArgReader a("escape", args, {});
  Value out = escape_value(v);
  interp.budget().string_of(out.as_string().size());
  return out;
}

Value f_forceescape(Interpreter& interp, const Value& v, const CallArgs& args) {
  ArgReader a("forceescape", args, {});
  Value out = Value::markup(html_escape(py_str(v)));
  interp.budget().string_of(out.as_string().size());
  return out;
}

Value f_format(Interpreter& interp, const Value& v, const CallArgs& args) {
  if (!args.positional.empty() && !args.named.empty())
    throw Failure("can't handle positional and keyword arguments at the same time");
  Value params;
  if (!args.named.empty()) {
    Mapping m;
    for (const auto& [k, val] : args.named) m.set(Value(k), val);
    params = Value::mapping(std::move(m));
  } else {
    params = Value::tuple(args.positional);
  }
  return like(v, percent_format(interp.budget(), soft_str(v), params, v.is_markup()));
}

Value f_indent(Interpreter& interp, const Value& v, const CallArgs& args) {
  ArgReader a("indent", args, {"width", "first", "blank"});
  require_defined(v);
  if (!v.is_string())
    throw Failure("unsupported operand type(s) for +=: '" + type_name(v) + "' and 'str'");
  Value width = a.get_or(0, Value(4));
  std::string indention =
      width.is_string()
          ? width.as_string()
          : std::string(static_cast<size_t>(std::max<int64_t>(0, int_arg(width, "indent() width"))),
                        ' ');
  ValueList lines = split_lines(v.as_string() + "\n", false);
  std::string out;
  if (flag(a, 2)) {
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i) out += "\n" + indention;
      out += lines[i].as_string();
    }
  } else {
    out = lines.empty() ? std::string() : lines[0].as_string();
    for (size_t i = 1; i < lines.size(); ++i) {
      out += "\n";
      if (!lines[i].as_string().empty()) out += indention;
      out += lines[i].as_string();
      interp.budget().string_of(out.size());
    }
  }
  if (flag(a, 1)) out = indention + out;
  interp.budget().string_of(out.size());
  return like(v, std::move(out));
}

Value f_lower(Interpreter&, const Value& v, const CallArgs& args) {
  ArgReader a("lower", args, {});
  return like(v, utf8::lower(soft_str(v)));
}

Value f_upper(Interpreter&, const Value& v, const CallArgs& args) {
  ArgReader a("upper", args, {});
  return like(v, utf8::upper(soft_str(v)));
}

Value f_replace(Interpreter& interp, const Value& v, const CallArgs& args) {
  ArgReader a("replace", args, {"old", "new", "count"});
  if (!a.has(0) || !a.has(1)) throw Failure("replace() missing required arguments 'old' and 'new'");
  CallArgs inner;
  inner.positional = {Value(py_str(*a.get(0))), Value(py_str(*a.get(1)))};
  if (a.has(2) && !a.get(2)->is_none()) inner.positional.push_back(*a.get(2));
  return call_method(interp.budget(), Value(py_str(v)), "replace", inner);
}

Value f_safe(Interpreter&, const Value& v, const CallArgs& args) {
  ArgReader a("safe", args, {});
  return markup_of(v);
}

Value f_string(Interpreter&, const Value& v, const CallArgs& args) {
  ArgReader a("string", args, {});
  return v.is_string() ? v : Value(soft_str(v));
}

Value f_striptags(Interpreter&, const Value& v, const CallArgs& args) {
  ArgReader a("striptags", args, {});
  std::string s = soft_str(v), text;
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 4, "<!--") == 0) {
      size_t end = s.find("-->", i + 4);
      if (end == std::string::npos) break;
      i = end + 3;
    } else if (s[i] == '<' && s.find('>', i) != std::string::npos) {
      i = s.find('>', i) + 1;
    } else {
      text += s[i++];
    }
  }
  ValueList words = split_string(text, Value::none(), -1, false);
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) out += (i ? " " : "") + words[i].as_string();
  static const std::pair<std::string_view, std::string_view> entities[] = {
      {"&lt;", "<"},   {"&gt;", ">"},  {"&quot;", "\""},
      {"&#34;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}};
  for (const auto& [from, to] : entities) {
    for (size_t at = out.find(from); at != std::string::npos; at = out.find(from, at + to.size()))
      out.replace(at, from.size(), to);
  }
  return Value(std::move(out));
}

Value f_title(Interpreter&, const Value& v, const CallArgs& args) {
  ArgReader a("title", args, {});
  // jinja2 capitalizes each word that follows a space, '-', or an opening bracket.
  std::u32string cps = utf8::to_code_points(soft_str(v));
  auto separator = [](char32_t c) {
    return utf8::is_space(c) || c == '-' || c == '(' || c == '{' || c == '[' || c == '<';
  };
  bool word_start = true;
  for (char32_t& c : cps) {
    if (separator(c)) {
      word_start = true;
      continue;
    }
    c = word_start ? utf8::to_upper(c) : utf8::to_lower(c);
    word_start = false;
  }
  return Value(utf8::from_code_points(cps));
}

Value f_trim(Interpreter&, const Value& v, const CallArgs& args) {
  ArgReader a("trim", args, {"chars"});
  std::string s = soft_str(v);
  const Value* chars = a.get(0);
  if (!chars || chars->is_none()) return like(v, std::string(utf8::strip(s, true, true)));
  return like(v, utf8::strip_chars(s, string_arg(*chars, "trim() chars"), true, true));
}

Value f_truncate(Interpreter&, const Value& v, const CallArgs& args) {
  ArgReader a("truncate", args, {"length", "killwords", "end", "leeway"});
  int64_t len = int_arg(a.get_or(0, Value(255)), "truncate() length");
  std::string end = string_arg(a.get_or(2, Value("...")), "truncate() end");
  int64_t leeway = a.has(3) && !a.get(3)->is_none() ? int_arg(*a.get(3), "truncate() leeway") : 5;
  auto end_len = static_cast<int64_t>(utf8::length(end));
  if (len < end_len)
    throw Failure("expected length >= " + std::to_string(end_len) + ", got " + std::to_string(len));
  if (leeway < 0) throw Failure("expected leeway >= 0, got " + std::to_string(leeway));
  if (static_cast<int64_t>(length(v)) <= len + leeway) return v;  // any sized value
  if (!v.is_string()) throw Failure("truncate() can only shorten a string, not " + type_name(v));
  std::u32string cps = utf8::to_code_points(v.as_string());
  std::u32string head = cps.substr(0, static_cast<size_t>(len - end_len));
  if (!flag(a, 1)) {
    size_t space = head.rfind(U' ');
    if (space != std::u32string::npos) head = head.substr(0, space);
  }
  if (v.is_markup()) return Value::markup(utf8::from_code_points(head) + html_escape(end));
  return Value(utf8::from_code_points(head) + end);
}

Value f_wordcount(Interpreter&, const Value& v, const CallArgs& args) {
  ArgReader a("wordcount", args, {});
  std::string s = soft_str(v);
  int64_t words = 0;
  bool in_word = false;
  for (size_t i = 0; i < s.size();) {
    utf8::Decoded d = utf8::decode(s, i);
    i += d.length;
    bool w = utf8::is_word(d.code_point);
    if (w && !in_word) ++words;
    in_word = w;
  }
  return Value(words);
}

}  // namespace zen::tmpl::filters
