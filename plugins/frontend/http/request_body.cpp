#include "request_body.h"

#include <zen/json_depth.hpp>

namespace zen::http {

std::variant<nlohmann::json, Reply> parse_json_object(std::string_view body) {
  if (text::json_depth(body) > text::kMaxJsonDepth)
    return error_reply(
        400, "the JSON body nests deeper than " + std::to_string(text::kMaxJsonDepth) + " levels");
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded())
    return error_reply(400,
                       "could not parse the JSON body of the request (expected one JSON object)");
  if (!j.is_object()) return error_reply(400, "the request body must be a JSON object");
  return j;
}

}  // namespace zen::http
