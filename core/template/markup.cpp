#include "markup.h"

#include "py_format.h"

namespace zen::tmpl {

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&#34;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string escaped_text(const Value& v) {
  if (v.is_markup()) return v.as_string();
  return html_escape(py_str(v));
}

Value escape_value(const Value& v) {
  if (v.is_markup()) return v;
  return Value::markup(html_escape(py_str(v)));
}

Value markup_of(const Value& v) {
  if (v.is_markup()) return v;
  return Value::markup(py_str(v));
}

}  // namespace zen::tmpl
