// Finds special tokens (control, unknown and user-defined tokens) in input text before the
// model's own splitting runs, so "<start_of_turn>" or "<|im_end|>" become one token and never
// fall apart into pieces.
//
// The order of claims follows llama.cpp exactly: tokens are taken longest first over the whole
// text (a long token wins over a shorter one that starts earlier and overlaps it), and each
// token's occurrences left to right. Candidate occurrences are found in one trie walk per
// position and kept as a bitmask over the distinct token lengths, so the whole partition costs
// O(text x distinct lengths) bit tests instead of one substring search per special token
// (Gemma has 6400 of them).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/vocab.h"

namespace zen::tokenizer {

struct Fragment {
  size_t begin = 0;  // raw text span [begin, end) when token == kNoToken
  size_t end = 0;
  int32_t token = kNoToken;
};

class SpecialMatcher {
 public:
  // The trie costs ~16 bytes per byte of special-token text; a file asking for more than this
  // much text is refused rather than allowed to take gigabytes (real ones use kilobytes).
  static constexpr size_t kMaxSpecialTextBytes = size_t{16} << 20;

  explicit SpecialMatcher(const Vocab& vocab);

  // Raw spans and special tokens in text order. Control and unknown tokens are matched only
  // when parse_special; user-defined ones always (as in llama.cpp and HF tokenizers).
  // Whitespace swallowed by lstrip/rstrip tokens belongs to no fragment.
  std::vector<Fragment> partition(std::string_view text, bool parse_special) const;

 private:
  struct Node {
    int32_t token = kNoToken;  // token spelled by the path to this node
    uint32_t rank = 0;         // the token's length as an index into lengths_
    int32_t first_child = -1;  // the first child inline: most nodes have exactly one
    uint8_t first_byte = 0;
    bool more_children = false;  // the others are in edges_
  };
  struct Candidates;

  int32_t child(int32_t node, uint8_t byte) const;
  int32_t add(std::string_view text, int32_t token);  // returns the terminal node
  Candidates find_candidates(std::string_view text, bool parse_special) const;
  int32_t token_at(std::string_view text, size_t pos, size_t length) const;

  const Vocab& vocab_;
  std::array<int32_t, 256> root_;
  std::vector<Node> nodes_;
  std::unordered_map<uint64_t, int32_t> edges_;  // (node << 8 | byte) -> child
  std::vector<size_t> lengths_;                  // distinct token lengths, longest first
};

}  // namespace zen::tokenizer
