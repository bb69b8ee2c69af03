#include "tokenizer/byte_level.h"

#include <array>

#include "tokenizer/utf8.h"

namespace zen::tokenizer::byte_level {
namespace {

bool printable(uint32_t b) {
  return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

struct Alphabet {
  std::array<std::string, 256> spelling;
  std::array<int16_t, 512> byte_of;  // code point -> byte, -1 if not in the alphabet

  Alphabet() {
    byte_of.fill(-1);
    uint32_t next = 256;  // non-printable bytes take U+0100, U+0101, ... in byte order
    for (uint32_t b = 0; b < 256; ++b) {
      uint32_t cpt = printable(b) ? b : next++;
      utf8::append(spelling[b], cpt);
      byte_of[cpt] = static_cast<int16_t>(b);
    }
  }
};

const Alphabet& alphabet() {
  static const Alphabet a;
  return a;
}

}  // namespace

std::string_view encode(uint8_t b) { return alphabet().spelling[b]; }

void encode(std::string_view raw, std::string& out) {
  const Alphabet& a = alphabet();
  for (char c : raw) out += a.spelling[static_cast<uint8_t>(c)];
}

std::optional<uint8_t> decode(uint32_t cpt) {
  if (cpt >= 512 || alphabet().byte_of[cpt] < 0) return std::nullopt;
  return static_cast<uint8_t>(alphabet().byte_of[cpt]);
}

}  // namespace zen::tokenizer::byte_level
