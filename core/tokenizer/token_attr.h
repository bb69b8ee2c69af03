// Per-token attributes. The bit values are llama.cpp's llama_token_attr, so behaviour that
// llama.cpp keys on them (which tokens are matched in text, which render when decoding) can be
// compared one to one.
#pragma once

#include <cstdint>

namespace zen::tokenizer {

enum TokenAttr : uint32_t {
  kAttrUndefined = 0,
  kAttrUnknown = 1u << 0,
  kAttrUnused = 1u << 1,
  kAttrNormal = 1u << 2,
  kAttrControl = 1u << 3,
  kAttrUserDefined = 1u << 4,
  kAttrByte = 1u << 5,
  kAttrLstrip = 1u << 7,  // matching this token in text swallows whitespace before it
  kAttrRstrip = 1u << 8,  // ... and after it
};

// GGUF tokenizer.ggml.token_type values (the converters' numbering).
enum class TokenType : int32_t {
  kUndefined = 0,
  kNormal = 1,
  kUnknown = 2,
  kControl = 3,
  kUserDefined = 4,
  kUnused = 5,
  kByte = 6,
};

// Attribute a token of GGUF type `type` starts with; unknown numbers are kAttrUndefined, as
// in llama.cpp (such tokens encode by text but render as nothing).
uint32_t attr_from_token_type(int32_t type);

// Control and unknown tokens are only recognised in text when the caller asks for it and
// render only when the caller asks for them.
inline constexpr uint32_t kAttrSpecial = kAttrControl | kAttrUnknown;
// Tokens matched as a whole before the model's own splitting (user-defined ones always).
inline constexpr uint32_t kAttrMatchedInText = kAttrControl | kAttrUnknown | kAttrUserDefined;

}  // namespace zen::tokenizer
