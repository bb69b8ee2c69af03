#include "safetensors/dtype.h"

#include <array>

namespace zen::safetensors {
namespace {

struct Entry {
  DType type;
  const char* name;
  size_t size;
};

constexpr std::array<Entry, 15> kTypes = {{{DType::kBool, "BOOL", 1},
                                           {DType::kU8, "U8", 1},
                                           {DType::kI8, "I8", 1},
                                           {DType::kF8_E4M3, "F8_E4M3", 1},
                                           {DType::kF8_E5M2, "F8_E5M2", 1},
                                           {DType::kI16, "I16", 2},
                                           {DType::kU16, "U16", 2},
                                           {DType::kF16, "F16", 2},
                                           {DType::kBF16, "BF16", 2},
                                           {DType::kI32, "I32", 4},
                                           {DType::kU32, "U32", 4},
                                           {DType::kF32, "F32", 4},
                                           {DType::kI64, "I64", 8},
                                           {DType::kU64, "U64", 8},
                                           {DType::kF64, "F64", 8}}};

const Entry& entry(DType t) { return kTypes[static_cast<size_t>(t)]; }

}  // namespace

size_t dtype_size(DType t) { return entry(t).size; }

const char* dtype_name(DType t) { return entry(t).name; }

std::optional<DType> parse_dtype(std::string_view name) {
  for (const Entry& e : kTypes)
    if (name == e.name) return e.type;
  return std::nullopt;
}

}  // namespace zen::safetensors
