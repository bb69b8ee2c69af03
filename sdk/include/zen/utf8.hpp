// Strict UTF-8 (Unicode's definition: no overlongs, surrogates or code points past U+10FFFF),
// header-only so the engine (core/text/utf8) and the frontends (which must show raw token
// bytes as JSON text) read it the same way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace zen::utf8 {

enum class Status { kComplete, kIncomplete, kInvalid };
struct Step {
  Status status;
  size_t length;  // kComplete: the sequence; kIncomplete: bytes present; kInvalid: bytes to replace
};

// One decoding step at s[i] (i < s.size()): a complete scalar value, the valid start of one cut
// off by the end of s, or an ill-formed subsequence to replace by one U+FFFD (the maximal
// subpart, as Unicode and WHATWG recommend).
inline Step next_strict(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<uint8_t>(s[i + k]); };
  const uint8_t lead = byte(0);
  if (lead < 0x80) return {Status::kComplete, 1};
  size_t need;
  uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    need = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    need = 3;
    if (lead == 0xE0) lo = 0xA0;  // no overlongs
    if (lead == 0xED) hi = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    need = 4;
    if (lead == 0xF0) lo = 0x90;  // no overlongs
    if (lead == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return {Status::kInvalid, 1};
  }
  for (size_t k = 1; k < need; ++k) {
    if (i + k >= s.size()) return {Status::kIncomplete, k};
    const uint8_t b = byte(k);
    const bool ok = k == 1 ? (b >= lo && b <= hi) : (b & 0xC0) == 0x80;
    if (!ok) return {Status::kInvalid, k};
  }
  return {Status::kComplete, need};
}

inline bool is_valid(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const Step st = next_strict(s, i);
    if (st.status != Status::kComplete) return false;
    i += st.length;
  }
  return true;
}

// s with every ill-formed or cut-off sequence replaced by one U+FFFD each (maximal subparts, as
// next_strict reads them): text safe to put in JSON.
inline std::string to_valid(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const Step step = next_strict(s, i);
    if (step.status == Status::kComplete)
      out.append(s.substr(i, step.length));
    else
      out.append("\xEF\xBF\xBD");  // U+FFFD
    i += step.length > 0 ? step.length : 1;
  }
  return out;
}

}  // namespace zen::utf8
