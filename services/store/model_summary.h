// What `list` shows of a model file: its architecture and quantization, read from the GGUF
// header with the hardened reader (tensor data is mapped, never read).
#pragma once

#include <string>

#include "gguf/gguf.h"

namespace zen::store {

struct ModelSummary {
  std::string architecture;  // general.architecture, or "?"
  std::string quant;         // general.file_type's name ("Q4_K_M"), else the tensor type that
                             // holds the most bytes ("Q8_0")
};

ModelSummary summarize(const gguf::File& file);

}  // namespace zen::store
