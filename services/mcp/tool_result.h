// A tools/call result turned into the text a model reads: text items joined with "\n", other
// items described ("[image/png, 1234 bytes]"), structuredContent as JSON text when there is
// no content, and the result's isError flag.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace zen::mcp {

struct FlatResult {
  std::string text;
  bool is_error = false;
};

FlatResult flatten_tool_result(const nlohmann::json& result);

}  // namespace zen::mcp
