// Python string formatting reachable from templates: printf-style `"%s: %d" % (a, b)` (also the
// `format` filter) and `"{}: {:.2f}".format(a, b)`, for the conversions templates use.
#pragma once

#include <string>
#include <string_view>

#include "budget.h"
#include "value.h"

namespace zen::tmpl {

// `fmt % args`: args is a tuple of values, a dict for %(name)s, or one value. With
// escape_args (a markup format string) %s and %r text is HTML-escaped unless it is markup.
std::string percent_format(Budget& budget, std::string_view fmt, const Value& args,
                           bool escape_args);
// `fmt.format(*args, **kwargs)`; escape_args as above, for each replacement field.
std::string brace_format(Budget& budget, std::string_view fmt, const CallArgs& args,
                         bool escape_args);

}  // namespace zen::tmpl
