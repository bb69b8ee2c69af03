// Layout facts of every tensor element type: what the GGUF reader validates against and what
// the graph and devices size buffers with. Numerics (quantize/dequantize) live in the
// Quantizer plugins; this table only knows shapes and bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include <zen/types.h>

namespace zen {

struct TypeTraits {
  zen_type type;
  std::string_view name;  // GGUF spelling: "F32", "Q4_K", ...
  uint32_t block_size;    // elements per block (1 for plain types)
  uint32_t block_bytes;   // bytes per block
  bool quantized;
};

// Traits of a known type id, or nullptr for unknown/retired ids (any uint32 is safe to pass).
const TypeTraits* type_traits(uint32_t type_id);

// Traits by GGUF name ("q4_k" or "Q4_K"), or nullptr.
const TypeTraits* type_traits_by_name(std::string_view name);

// Bytes of a row of n elements, or nullopt when n is not a multiple of the block size or the
// product overflows.
std::optional<uint64_t> row_bytes(const TypeTraits& t, uint64_t n);

}  // namespace zen
