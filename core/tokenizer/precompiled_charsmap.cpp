#include "tokenizer/precompiled_charsmap.h"

#include <cstring>

#include "tokenizer/error.h"
#include "tokenizer/unicode_data.h"
#include "tokenizer/utf8.h"

namespace zen::tokenizer {
namespace {

[[noreturn]] void fail(const std::string& what) {
  throw Error("tokenizer: metadata key 'tokenizer.ggml.precompiled_charsmap': " + what);
}

// darts-clone unit fields.
bool has_leaf(uint32_t u) { return (u >> 8) & 1; }
uint32_t value(uint32_t u) { return u & ((1u << 31) - 1); }
uint32_t label(uint32_t u) { return u & ((1u << 31) | 0xFF); }
uint32_t offset(uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }

// Continues a grapheme cluster (approximation of UAX #29 for the short clusters that matter
// here): combining marks, ZWJ, variation selectors.
bool extends_cluster(char32_t cp) {
  return cp == 0x200D || (unicode::flags(cp) & unicode::kMark) != 0;
}

}  // namespace

PrecompiledCharsmap::PrecompiledCharsmap(const std::vector<uint8_t>& bytes) {
  if (bytes.empty()) return;
  if (bytes.size() < 4) fail("shorter than its 4-byte header");
  uint32_t trie_size = static_cast<uint32_t>(bytes[0]) | static_cast<uint32_t>(bytes[1]) << 8 |
                       static_cast<uint32_t>(bytes[2]) << 16 |
                       static_cast<uint32_t>(bytes[3]) << 24;
  if (trie_size % 4 != 0 || trie_size == 0 || trie_size > bytes.size() - 4) {
    fail("trie size " + std::to_string(trie_size) + " does not fit the " +
         std::to_string(bytes.size()) + " bytes");
  }
  units_.resize(trie_size / 4);
  for (size_t i = 0; i < units_.size(); ++i) {
    const uint8_t* p = bytes.data() + 4 + 4 * i;
    units_[i] = static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
                static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
  }
  blob_.assign(reinterpret_cast<const char*>(bytes.data()) + 4 + trie_size,
               bytes.size() - 4 - trie_size);
}

PrecompiledCharsmap::Match PrecompiledCharsmap::shortest_prefix(std::string_view text) const {
  if (units_.empty()) return {};
  size_t node = offset(units_[0]);
  for (size_t i = 0; i < text.size(); ++i) {
    node ^= static_cast<uint8_t>(text[i]);
    if (node >= units_.size()) return {};
    uint32_t unit = units_[node];
    if (label(unit) != static_cast<uint8_t>(text[i])) return {};
    node ^= offset(unit);
    if (node >= units_.size()) return {};
    if (has_leaf(unit)) {
      uint32_t at = value(units_[node]);
      if (at >= blob_.size()) return {};  // a corrupt value matches nothing
      size_t end = blob_.find('\0', at);
      if (end == std::string::npos) end = blob_.size();
      return {i + 1, std::string_view(blob_).substr(at, end - at)};
    }
  }
  return {};
}

void PrecompiledCharsmap::normalize(std::string_view text, std::string& out) const {
  out.clear();
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    // The cluster starting at i: a character, then any that extend it; CR LF is one.
    size_t end = i + utf8::decode_lenient(text, i).length;
    if (text[i] == '\r' && end < text.size() && text[end] == '\n') {
      ++end;
    } else {
      while (end < text.size()) {
        utf8::Lenient c = utf8::decode_lenient(text, end);
        if (!extends_cluster(c.cpt)) break;
        end += c.length;
      }
    }
    std::string_view cluster = text.substr(i, end - i);
    if (cluster.size() < 6) {
      if (Match m = shortest_prefix(cluster); m.length) {
        out.append(m.replacement);
        i = end;
        continue;
      }
    }
    while (i < end) {
      size_t n = utf8::decode_lenient(text, i).length;
      std::string_view ch = text.substr(i, n);
      Match m = shortest_prefix(ch);
      if (m.length == n) {
        out.append(m.replacement);
      } else {
        out.append(ch);
      }
      i += n;
    }
  }
}

}  // namespace zen::tokenizer
