// How deeply a JSON text nests, found without parsing it: request bodies are checked with this
// before nlohmann::json parses them, because re-serialising or walking a hostile body
// (recursive in nlohmann::json and in our validators) could exhaust the stack. Header-only, in
// the SDK: the frontends check what they receive, the host's MCP client what servers send.
#pragma once

#include <algorithm>
#include <string_view>

namespace zen::text {

// Deeper nesting than any real request needs (OpenAI bodies nest a handful of levels).
inline constexpr int kMaxJsonDepth = 64;

// The most [ / { containers open at once in `text`, not counting brackets inside strings.
// Well-formedness is not checked: the parser does that afterwards.
inline int json_depth(std::string_view text) {
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
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace zen::text
