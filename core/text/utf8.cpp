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

}  // namespace zen::text::utf8
