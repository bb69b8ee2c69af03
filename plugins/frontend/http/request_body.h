// A request body as a JSON object, or the 400 that explains why it is not one.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <variant>

#include "reply.h"

namespace zen::http {

// Refuses bodies nesting deeper than text::kMaxJsonDepth before parsing them.
std::variant<nlohmann::json, Reply> parse_json_object(std::string_view body);

}  // namespace zen::http
