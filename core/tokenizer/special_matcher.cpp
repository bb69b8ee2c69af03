#include "tokenizer/special_matcher.h"

#include <algorithm>
#include <string>
#include <utility>

#include "tokenizer/error.h"

namespace zen::tokenizer {
namespace {

enum : uint8_t { kFree, kClaimed, kStripped };

bool ascii_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

bool allowed(uint32_t attr, bool parse_special) { return parse_special || !(attr & kAttrSpecial); }

}  // namespace

// Positions where at least one special token starts, each with a bitmask over lengths_.
struct SpecialMatcher::Candidates {
  size_t words = 1;  // mask words per position
  std::vector<size_t> positions;
  std::vector<uint64_t> masks;

  bool has(size_t i, size_t rank) const { return masks[i * words + rank / 64] >> (rank % 64) & 1; }
};

SpecialMatcher::SpecialMatcher(const Vocab& vocab) : vocab_(vocab) {
  root_.fill(-1);
  size_t text_bytes = 0;
  for (int32_t id = 0; id < vocab.size(); ++id) {
    if (vocab.attr(id) & kAttrMatchedInText) text_bytes += vocab.text(id).size();
  }
  if (text_bytes > kMaxSpecialTextBytes) {
    throw Error("tokenizer: special tokens hold " + std::to_string(text_bytes) +
                " bytes of text (limit " + std::to_string(kMaxSpecialTextBytes) + ")");
  }
  std::vector<std::pair<int32_t, size_t>> terminals;  // (node, token length)
  for (int32_t id = 0; id < vocab.size(); ++id) {
    std::string_view text = vocab.text(id);
    if (!(vocab.attr(id) & kAttrMatchedInText) || text.empty()) continue;
    terminals.emplace_back(add(text, id), text.size());
    lengths_.push_back(text.size());
  }
  std::sort(lengths_.begin(), lengths_.end(), std::greater<>());
  lengths_.erase(std::unique(lengths_.begin(), lengths_.end()), lengths_.end());
  for (auto [node, length] : terminals) {
    auto it = std::lower_bound(lengths_.begin(), lengths_.end(), length, std::greater<>());
    nodes_[static_cast<size_t>(node)].rank = static_cast<uint32_t>(it - lengths_.begin());
  }
}

int32_t SpecialMatcher::child(int32_t node, uint8_t byte) const {
  const Node& n = nodes_[static_cast<size_t>(node)];
  if (n.first_child >= 0 && n.first_byte == byte) return n.first_child;
  if (!n.more_children) return -1;
  auto it = edges_.find(static_cast<uint64_t>(node) << 8 | byte);
  return it == edges_.end() ? -1 : it->second;
}

int32_t SpecialMatcher::add(std::string_view text, int32_t token) {
  auto first = static_cast<uint8_t>(text[0]);
  if (root_[first] < 0) {
    root_[first] = static_cast<int32_t>(nodes_.size());
    nodes_.emplace_back();
  }
  int32_t node = root_[first];
  for (size_t i = 1; i < text.size(); ++i) {
    auto b = static_cast<uint8_t>(text[i]);
    int32_t next = child(node, b);
    if (next < 0) {
      next = static_cast<int32_t>(nodes_.size());
      nodes_.emplace_back();
      Node& n = nodes_[static_cast<size_t>(node)];
      if (n.first_child < 0) {
        n.first_child = next;
        n.first_byte = b;
      } else {
        n.more_children = true;
        edges_.emplace(static_cast<uint64_t>(node) << 8 | b, next);
      }
    }
    node = next;
  }
  nodes_[static_cast<size_t>(node)].token = token;
  return node;
}

SpecialMatcher::Candidates SpecialMatcher::find_candidates(std::string_view text,
                                                           bool parse_special) const {
  Candidates c;
  c.words = (lengths_.size() + 63) / 64;
  std::vector<uint64_t> mask(c.words);
  for (size_t p = 0; p < text.size(); ++p) {
    int32_t node = root_[static_cast<uint8_t>(text[p])];
    bool any = false;
    std::fill(mask.begin(), mask.end(), 0);
    for (size_t depth = 1; node >= 0; ++depth) {
      const Node& n = nodes_[static_cast<size_t>(node)];
      if (n.token != kNoToken && allowed(vocab_.attr(n.token), parse_special)) {
        mask[n.rank / 64] |= uint64_t{1} << (n.rank % 64);
        any = true;
      }
      if (p + depth >= text.size()) break;
      node = child(node, static_cast<uint8_t>(text[p + depth]));
    }
    if (any) {
      c.positions.push_back(p);
      c.masks.insert(c.masks.end(), mask.begin(), mask.end());
    }
  }
  return c;
}

int32_t SpecialMatcher::token_at(std::string_view text, size_t pos, size_t length) const {
  int32_t node = root_[static_cast<uint8_t>(text[pos])];
  for (size_t i = 1; i < length; ++i) node = child(node, static_cast<uint8_t>(text[pos + i]));
  return nodes_[static_cast<size_t>(node)].token;
}

std::vector<Fragment> SpecialMatcher::partition(std::string_view text, bool parse_special) const {
  std::vector<Fragment> out;
  if (text.empty()) return out;
  Candidates c = lengths_.empty() ? Candidates{} : find_candidates(text, parse_special);
  if (c.positions.empty()) {
    out.push_back({0, text.size(), kNoToken});
    return out;
  }

  std::vector<uint8_t> state(text.size(), kFree);
  std::vector<Fragment> claimed;
  for (size_t rank = 0; rank < lengths_.size(); ++rank) {
    size_t length = lengths_[rank];
    for (size_t i = 0; i < c.positions.size(); ++i) {
      if (!c.has(i, rank)) continue;
      size_t p = c.positions[i];
      if (!std::all_of(state.begin() + p, state.begin() + p + length,
                       [](uint8_t s) { return s == kFree; })) {
        continue;
      }
      std::fill(state.begin() + p, state.begin() + p + length, kClaimed);
      int32_t token = token_at(text, p, length);
      claimed.push_back({p, p + length, token});
      uint32_t attr = vocab_.attr(token);
      if (attr & kAttrRstrip) {
        for (size_t q = p + length; q < text.size() && state[q] == kFree && ascii_space(text[q]);
             ++q) {
          state[q] = kStripped;
        }
      }
      if (attr & kAttrLstrip) {
        for (size_t q = p; q > 0 && state[q - 1] == kFree && ascii_space(text[q - 1]); --q) {
          state[q - 1] = kStripped;
        }
      }
    }
  }

  std::sort(claimed.begin(), claimed.end(),
            [](const Fragment& a, const Fragment& b) { return a.begin < b.begin; });
  size_t next_claim = 0;
  for (size_t p = 0; p < text.size();) {
    if (state[p] == kClaimed) {
      out.push_back(claimed[next_claim++]);
      p = out.back().end;
    } else if (state[p] == kStripped) {
      ++p;
    } else {
      size_t end = p;
      while (end < text.size() && state[end] == kFree) ++end;
      out.push_back({p, end, kNoToken});
      p = end;
    }
  }
  return out;
}

}  // namespace zen::tokenizer
