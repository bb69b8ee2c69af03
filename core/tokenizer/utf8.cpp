#include "tokenizer/utf8.h"

namespace zen::tokenizer::utf8 {
namespace {

bool is_continuation(uint8_t b) { return (b & 0xC0) == 0x80; }

}  // namespace

Lenient decode_lenient(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<uint8_t>(s[i + k]); };
  auto continued = [&](size_t n) {  // n continuation bytes follow the lead
    if (i + n >= s.size()) return false;
    for (size_t k = 1; k <= n; ++k) {
      if (!is_continuation(byte(k))) return false;
    }
    return true;
  };
  uint8_t lead = byte(0);
  if (lead < 0x80) return {lead, 1};
  if (lead < 0xC0) return {kReplacement, 1};
  if (lead < 0xE0) {
    if (!continued(1)) return {kReplacement, 1};
    return {(uint32_t{lead} & 0x1F) << 6 | (byte(1) & 0x3F), 2};
  }
  if (lead < 0xF0) {
    if (!continued(2)) return {kReplacement, 1};
    return {(uint32_t{lead} & 0x0F) << 12 | (uint32_t{byte(1)} & 0x3F) << 6 | (byte(2) & 0x3F), 3};
  }
  if (lead < 0xF8) {
    if (!continued(3)) return {kReplacement, 1};
    uint32_t cpt = (uint32_t{lead} & 0x07) << 18 | (uint32_t{byte(1)} & 0x3F) << 12 |
                   (uint32_t{byte(2)} & 0x3F) << 6 | (byte(3) & 0x3F);
    // llama.cpp aborts on these (it cannot re-encode them); one U+FFFD is the sane reading.
    if (cpt > 0x10FFFF) return {kReplacement, 4};
    return {cpt, 4};
  }
  return {kReplacement, 1};
}

Normalized normalize_lenient(std::string_view raw) {
  Normalized n;
  n.text.reserve(raw.size() + raw.size() / 8);
  for (size_t i = 0; i < raw.size();) {
    Lenient c = decode_lenient(raw, i);
    i += c.length;
    append(n.text, c.cpt);
  }
  n.subject = n.text;
  // Surrogates (ED A0..BF xx) are the only ill-formed sequences left; U+FFFD has their length.
  for (size_t i = 0; i + 2 < n.subject.size(); ++i) {
    if (static_cast<uint8_t>(n.subject[i]) == 0xED &&
        static_cast<uint8_t>(n.subject[i + 1]) >= 0xA0) {
      n.subject[i] = static_cast<char>(0xEF);
      n.subject[i + 1] = static_cast<char>(0xBF);
      n.subject[i + 2] = static_cast<char>(0xBD);
      i += 2;
    }
  }
  return n;
}

}  // namespace zen::tokenizer::utf8
