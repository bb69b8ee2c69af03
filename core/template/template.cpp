#include "template.h"

#include <new>

#include "interpreter.h"
#include "json_convert.h"
#include "parser.h"

namespace zen::tmpl {

struct Template::Parsed {
  Body body;
};

Template Template::parse(std::string_view source, const Limits& limits) {
  if (source.size() > limits.max_template_bytes)
    throw Error(ErrorKind::Limit,
                "template of " + std::to_string(source.size()) + " bytes exceeds the " +
                    std::to_string(limits.max_template_bytes) + "-byte limit",
                1, 1);
  auto parsed = std::make_shared<Parsed>();
  parsed->body = parse_template(source, ParseLimits{limits.max_nesting});
  Template t;
  t.parsed_ = std::move(parsed);
  t.limits_ = limits;
  return t;
}

std::string Template::render(const Json& context, const RenderOptions& options) const {
  if (!context.is_object())
    throw Error(ErrorKind::Render, "the render context must be a JSON object", 0, 0);
  Value ctx;
  try {
    ctx = from_json(context);
  } catch (const Failure& f) {
    throw Error(f.kind(), "render context: " + f.message(), 0, 0);
  }
  Interpreter interp(limits_, options);
  try {
    return interp.render(parsed_->body, ctx);
  } catch (const Error&) {
    throw;
  } catch (const Failure& f) {
    throw Error(f.kind(), f.message(), 0, 0);
  } catch (const std::bad_alloc&) {
    throw Error(ErrorKind::Limit, "out of memory while rendering", 0, 0);
  } catch (const std::exception& e) {
    // A bug, not a template problem: still report it as this API's error type.
    throw Error(ErrorKind::Render, std::string("internal error: ") + e.what(), 0, 0);
  }
}

}  // namespace zen::tmpl
