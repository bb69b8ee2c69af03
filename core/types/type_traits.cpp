#include "type_traits.h"

#include <array>
#include <cctype>

namespace zen {
namespace {

constexpr TypeTraits kTraits[] = {
    {ZEN_TYPE_F32, "F32", 1, 4, false},          {ZEN_TYPE_F16, "F16", 1, 2, false},
    {ZEN_TYPE_Q4_0, "Q4_0", 32, 18, true},       {ZEN_TYPE_Q4_1, "Q4_1", 32, 20, true},
    {ZEN_TYPE_Q5_0, "Q5_0", 32, 22, true},       {ZEN_TYPE_Q5_1, "Q5_1", 32, 24, true},
    {ZEN_TYPE_Q8_0, "Q8_0", 32, 34, true},  // Q8_1 is ggml's {half d, half s, int8 qs[32]};
                                            // gguf-py's table still says 40 bytes.
    {ZEN_TYPE_Q8_1, "Q8_1", 32, 36, true},       {ZEN_TYPE_Q2_K, "Q2_K", 256, 84, true},
    {ZEN_TYPE_Q3_K, "Q3_K", 256, 110, true},     {ZEN_TYPE_Q4_K, "Q4_K", 256, 144, true},
    {ZEN_TYPE_Q5_K, "Q5_K", 256, 176, true},     {ZEN_TYPE_Q6_K, "Q6_K", 256, 210, true},
    {ZEN_TYPE_Q8_K, "Q8_K", 256, 292, true},     {ZEN_TYPE_IQ2_XXS, "IQ2_XXS", 256, 66, true},
    {ZEN_TYPE_IQ2_XS, "IQ2_XS", 256, 74, true},  {ZEN_TYPE_IQ3_XXS, "IQ3_XXS", 256, 98, true},
    {ZEN_TYPE_IQ1_S, "IQ1_S", 256, 50, true},    {ZEN_TYPE_IQ4_NL, "IQ4_NL", 32, 18, true},
    {ZEN_TYPE_IQ3_S, "IQ3_S", 256, 110, true},   {ZEN_TYPE_IQ2_S, "IQ2_S", 256, 82, true},
    {ZEN_TYPE_IQ4_XS, "IQ4_XS", 256, 136, true}, {ZEN_TYPE_I8, "I8", 1, 1, false},
    {ZEN_TYPE_I16, "I16", 1, 2, false},          {ZEN_TYPE_I32, "I32", 1, 4, false},
    {ZEN_TYPE_I64, "I64", 1, 8, false},          {ZEN_TYPE_F64, "F64", 1, 8, false},
    {ZEN_TYPE_IQ1_M, "IQ1_M", 256, 56, true},    {ZEN_TYPE_BF16, "BF16", 1, 2, false},
    {ZEN_TYPE_TQ1_0, "TQ1_0", 256, 54, true},    {ZEN_TYPE_TQ2_0, "TQ2_0", 256, 66, true},
    {ZEN_TYPE_MXFP4, "MXFP4", 32, 17, true},     {ZEN_TYPE_NVFP4, "NVFP4", 64, 36, true},
    {ZEN_TYPE_Q1_0, "Q1_0", 128, 18, true},
};

constexpr auto kById = [] {
  std::array<const TypeTraits*, ZEN_TYPE_COUNT> by_id{};
  for (const auto& t : kTraits) by_id[t.type] = &t;
  return by_id;
}();

}  // namespace

const TypeTraits* type_traits(uint32_t type_id) {
  return type_id < kById.size() ? kById[type_id] : nullptr;
}

const TypeTraits* type_traits_by_name(std::string_view name) {
  for (const auto& t : kTraits) {
    if (t.name.size() != name.size()) continue;
    bool same = true;
    for (size_t i = 0; i < name.size() && same; ++i)
      same = std::toupper(static_cast<unsigned char>(name[i])) == t.name[i];
    if (same) return &t;
  }
  return nullptr;
}

std::optional<uint64_t> row_bytes(const TypeTraits& t, uint64_t n) {
  if (n % t.block_size != 0) return std::nullopt;
  uint64_t blocks = n / t.block_size, bytes = 0;
  if (__builtin_mul_overflow(blocks, uint64_t{t.block_bytes}, &bytes)) return std::nullopt;
  return bytes;
}

}  // namespace zen
