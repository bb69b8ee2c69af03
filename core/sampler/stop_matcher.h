// Stop strings over streamed text: how much of what was generated can go to the client now.
//
// Text arrives in chunks (one token's bytes each). push() returns what is safe to emit: it holds
// back the longest tail that could still grow into a stop string, and a character whose last
// bytes have not arrived (UTF-8 is never split). When a stop string completes, the text before
// it is emitted, the stop string and everything after it are not, and generation should end.
//
// If several stop strings could match, the one that completes first in the stream wins (the
// generator stops there); at the same end, the longest. This makes the result independent of
// how the text was split into chunks. Matching is by bytes, with one incremental automaton
// (Knuth-Morris-Pratt) per stop string: linear in the text, with no rescanning.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sampler/error.h"

namespace zen::sampling {

class StopMatcher {
 public:
  struct Output {
    std::string text;            // safe to emit now
    std::optional<size_t> stop;  // index of the stop string that matched: generation is over
  };

  // Throws InvalidParams for an empty stop string or one that is not valid UTF-8.
  explicit StopMatcher(std::vector<std::string> stops);

  // Once a stop matched, further chunks are ignored (the same stop is reported again).
  Output push(std::string_view chunk);

  // The end of generation without a stop: everything held back. An incomplete character at
  // the very end becomes U+FFFD. Empty after a stop. push() after finish() throws Error.
  std::string finish();

 private:
  struct Pattern {
    std::string text;
    std::vector<size_t> fallback;  // KMP failure function
    size_t matched = 0;            // length of the longest prefix that ends the text so far
  };

  std::vector<Pattern> patterns_;
  std::string pending_;  // received, not emitted yet
  std::optional<size_t> stopped_;
  bool finished_ = false;
};

}  // namespace zen::sampling
