#include "request_body.h"

#include <algorithm>

namespace zen::http {

int json_depth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '[' || c == '{')
      deepest = std::max(deepest, ++depth);
    else if (c == ']' || c == '}')
      --depth;
  }
  return deepest;
}

std::variant<nlohmann::json, Reply> parse_json_object(std::string_view body) {
  if (json_depth(body) > kMaxJsonDepth)
    return error_reply(
        400, "the JSON body nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded())
    return error_reply(400,
                       "could not parse the JSON body of the request (expected one JSON object)");
  if (!j.is_object()) return error_reply(400, "the request body must be a JSON object");
  return j;
}

}  // namespace zen::http
