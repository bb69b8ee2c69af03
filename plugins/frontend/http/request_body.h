// A request body as a JSON object, or the 400 that explains why it is not one. Ordered: tool
// schemas reach the chat template in the client's key order.
#pragma once

#include <string_view>
#include <variant>

#include "json_fields.h"
#include "reply.h"

namespace zen::http {

// Refuses bodies nesting deeper than text::kMaxJsonDepth before parsing them.
std::variant<frontend::Json, Reply> parse_json_object(std::string_view body);

}  // namespace zen::http
