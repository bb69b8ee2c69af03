// markupsafe's Markup, as jinja2 uses it even with autoescaping off: `x|safe` and `x|escape`
// produce markup, and markup escapes plain strings combined with it ("<b>"|safe + "<i>" is
// "<b>&lt;i&gt;"). Real templates rely on this (functionary's `"..."|safe + tool|tojson`).
#pragma once

#include <string>
#include <string_view>

#include "value.h"

namespace zen::tmpl {

// markupsafe's escaping of & < > ' ".
std::string html_escape(std::string_view s);
// markupsafe.escape(v): markup stays as it is, anything else becomes escaped markup.
Value escape_value(const Value& v);
// Markup(v): markup stays as it is, anything else becomes markup of its str() unescaped.
Value markup_of(const Value& v);
// The text of v as markup would join it: markup as is, other values str() and escaped.
std::string escaped_text(const Value& v);

}  // namespace zen::tmpl
