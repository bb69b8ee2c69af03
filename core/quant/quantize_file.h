// Rewrites a GGUF model with its weights in another type (zen-engine quantize), choosing each
// tensor's type with llama-quantize's recipes (recipe.h). Everything that can be checked is
// checked before any work starts; OUT is written through a temporary file and appears only
// once complete, so a failure never leaves a partial OUT.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "gguf/gguf.h"
#include "quant/convert.h"
#include "quant/recipe.h"

namespace zen::quant {

struct QuantizeFileOptions {
  const FileType* target = nullptr;  // required
  RecipeOptions recipe;
  unsigned threads = 1;           // worker threads converting rows
  bool allow_requantize = false;  // else converting an already quantized tensor is refused
};

// One tensor written: the i-th of n, as read, its plan, and its bytes in OUT.
struct TensorWritten {
  size_t index, count;
  const gguf::TensorInfo& tensor;
  const TensorPlan& plan;
  uint64_t out_bytes;
};

struct QuantizeFileResult {
  uint64_t in_bytes = 0, out_bytes = 0;  // tensor data
};

// Called before the first tensor is converted (OUT's temporary file exists by then).
using QuantizeStart = std::function<void()>;
using QuantizeProgress = std::function<void(const TensorWritten&)>;

// Throws gguf::Error naming the file, tensor and reason.
QuantizeFileResult quantize_file(const std::string& in_path, const std::string& out_path,
                                 const QuantizeFileOptions& options,
                                 const QuantizeStart& on_start = {},
                                 const QuantizeProgress& on_tensor = {});

// The same for a model already open: a GGUF, or a Hugging Face directory assembled by core/hf
// (in_label names it in messages).
QuantizeFileResult quantize_file(const gguf::File& in, const std::string& in_label,
                                 const std::string& out_path, const QuantizeFileOptions& options,
                                 const QuantizeStart& on_start = {},
                                 const QuantizeProgress& on_tensor = {});

}  // namespace zen::quant
