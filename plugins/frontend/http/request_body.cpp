#include "request_body.h"

#include <zen/json_depth.hpp>

#include "ordered_parse.h"

namespace zen::http {

std::variant<frontend::Json, Reply> parse_json_object(std::string_view body) {
  if (text::json_depth(body) > text::kMaxJsonDepth)
    return error_reply(
        400, "the JSON body nests deeper than " + std::to_string(text::kMaxJsonDepth) + " levels");
  std::optional<frontend::Json> j = frontend::parse_ordered(body);
  if (!j)
    return error_reply(400,
                       "could not parse the JSON body of the request (expected one JSON object)");
  if (!j->is_object()) return error_reply(400, "the request body must be a JSON object");
  return std::move(*j);
}

}  // namespace zen::http
