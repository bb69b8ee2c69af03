#include "store/model_summary.h"

#include <map>

#include "gguf/text.h"
#include "quant/recipe.h"
#include "types/type_traits.h"

namespace zen::store {

namespace {

std::string dominant_tensor_type(const gguf::File& file) {
  std::map<std::string_view, uint64_t> bytes_by_type;
  for (const gguf::TensorInfo& t : file.tensors()) {
    const TypeTraits* traits = type_traits(static_cast<uint32_t>(t.type));
    bytes_by_type[traits ? traits->name : "?"] += t.n_bytes;
  }
  std::string_view best = "?";
  uint64_t best_bytes = 0;
  for (const auto& [name, bytes] : bytes_by_type) {
    if (bytes > best_bytes) {
      best = name;
      best_bytes = bytes;
    }
  }
  return std::string(best);
}

}  // namespace

ModelSummary summarize(const gguf::File& file) {
  ModelSummary summary;
  const gguf::Value* arch = file.find("general.architecture");
  summary.architecture =
      arch && arch->type() == gguf::ValueType::STRING ? gguf::escape(arch->as_string(), 64) : "?";
  if (const gguf::Value* ft = file.find("general.file_type"); ft && !ft->is_array()) {
    try {
      uint32_t id = ft->as_int<uint32_t>();
      for (const quant::FileType& type : quant::file_types()) {
        if (type.id == id) summary.quant = std::string(type.name);
      }
    } catch (const gguf::Error&) {
      // Not an unsigned integer: fall back to the tensor types below.
    }
  }
  if (summary.quant.empty()) summary.quant = dominant_tensor_type(file);
  return summary;
}

}  // namespace zen::store
