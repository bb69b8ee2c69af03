// The element types a safetensors header names ("F32", "BF16", "F8_E4M3", ...), their sizes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace zen::safetensors {

enum class DType : uint8_t {
  kBool,
  kU8,
  kI8,
  kF8_E4M3,
  kF8_E5M2,
  kI16,
  kU16,
  kF16,
  kBF16,
  kI32,
  kU32,
  kF32,
  kI64,
  kU64,
  kF64
};

// Bytes per element.
size_t dtype_size(DType t);
const char* dtype_name(DType t);
// nullopt for a name the format does not define.
std::optional<DType> parse_dtype(std::string_view name);

}  // namespace zen::safetensors
