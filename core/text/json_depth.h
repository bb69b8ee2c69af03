// How deeply a JSON text nests, found without parsing it: request bodies are checked with this
// before nlohmann::json parses them, because re-serialising or walking a hostile body
// (recursive in nlohmann::json and in our validators) could exhaust the stack.
#pragma once

#include <string_view>

namespace zen::text {

// Deeper nesting than any real request needs (OpenAI bodies nest a handful of levels).
inline constexpr int kMaxJsonDepth = 64;

// The most [ / { containers open at once in `text`, not counting brackets inside strings.
// Well-formedness is not checked: the parser does that afterwards.
int json_depth(std::string_view text);

}  // namespace zen::text
