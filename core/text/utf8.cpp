#include "text/utf8.h"

namespace zen::text::utf8 {
namespace {

bool is_continuation(uint8_t b) { return (b & 0xC0) == 0x80; }

}  // namespace

void append(std::string& out, uint32_t cpt) {
  if (cpt <= 0x7F) {
    out.push_back(static_cast<char>(cpt));
  } else if (cpt <= 0x7FF) {
    out.push_back(static_cast<char>(0xC0 | (cpt >> 6)));
    out.push_back(static_cast<char>(0x80 | (cpt & 0x3F)));
  } else if (cpt <= 0xFFFF) {
    out.push_back(static_cast<char>(0xE0 | (cpt >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cpt >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cpt & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cpt >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cpt >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cpt >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cpt & 0x3F)));
  }
}

Step next_strict(std::string_view s, size_t i) {
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
    const bool ok = k == 1 ? (b >= lo && b <= hi) : is_continuation(b);
    if (!ok) return {Status::kInvalid, k};
  }
  return {Status::kComplete, need};
}

bool is_valid(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const Step st = next_strict(s, i);
    if (st.status != Status::kComplete) return false;
    i += st.length;
  }
  return true;
}

size_t incomplete_tail(std::string_view s) {
  // An unfinished character starts at most 3 bytes from the end, at its lead byte.
  for (size_t back = 1; back <= 3 && back <= s.size(); ++back) {
    const size_t at = s.size() - back;
    if (is_continuation(static_cast<uint8_t>(s[at]))) continue;
    const Step st = next_strict(s, at);
    return st.status == Status::kIncomplete ? back : 0;
  }
  return 0;
}

std::string to_valid(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const Step step = next_strict(s, i);
    if (step.status == Status::kComplete)
      out.append(s.substr(i, step.length));
    else
      append(out, 0xFFFD);
    i += step.length > 0 ? step.length : 1;
  }
  return out;
}

}  // namespace zen::text::utf8
