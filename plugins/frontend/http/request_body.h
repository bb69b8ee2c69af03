// A request body as a JSON object, or the 400 that explains why it is not one.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <variant>

#include "reply.h"

namespace zen::http {

// Deeper nesting than any real request needs; bounded so that re-serialising a hostile body
// (recursive in nlohmann::json) cannot exhaust the stack.
constexpr int kMaxJsonDepth = 64;

// Deepest [ / { nesting of a JSON text, ignoring brackets inside strings.
int json_depth(std::string_view text);

std::variant<nlohmann::json, Reply> parse_json_object(std::string_view body);

}  // namespace zen::http
