// GPT-2's byte-level alphabet: each of the 256 byte values is spelled by one printable code
// point (printable Latin-1 bytes as themselves, the rest as U+0100 onwards), so byte-level BPE
// vocabularies are plain text ("Ġ" is the space byte).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace zen::tokenizer::byte_level {

// UTF-8 spelling of byte b.
std::string_view encode(uint8_t b);
// Appends the spelling of every byte of raw.
void encode(std::string_view raw, std::string& out);
// The byte a code point spells, if it is one of the alphabet's.
std::optional<uint8_t> decode(uint32_t cpt);

}  // namespace zen::tokenizer::byte_level
