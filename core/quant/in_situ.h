// Placing a model's tensors in memory as it loads, and in-situ quantization (--isq): each
// tensor the recipe quantizes is converted as it is reached and its source released at once
// (a converted copy freed, a mapping's pages handed back to the kernel), so memory holds the
// quantized model plus one tensor in flight, never the full-precision model.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/gguf.h"
#include "quant/recipe.h"

namespace zen::quant {

// A tensor of a model being loaded: its bytes are at info.data (a mapping, zero copy), or,
// when `fill` is set, fill writes them (a converted copy: F32 norms, reordered rows, stacked
// experts) into info.n_bytes of memory it is given.
struct SourceTensor {
  gguf::TensorInfo info;
  std::function<void(uint8_t* dst)> fill;
};

// Owned tensor memory, 64-byte aligned as devices' vector loads like it: buffers, and the
// mapped file quantized tensors are written to (in_situ.cpp says why).
class TensorBuffers {
 public:
  TensorBuffers();
  ~TensorBuffers();
  TensorBuffers(TensorBuffers&&) noexcept;
  uint8_t* allocate(uint64_t n_bytes);

  class SpillFile;
  // The file quantized tensors go to, opened on first use; nullptr where none can be made.
  SpillFile* spill();

 private:
  struct Free {
    void operator()(uint8_t* p) const;
  };
  std::vector<std::unique_ptr<uint8_t, Free>> buffers_;
  std::unique_ptr<SpillFile> spill_;
  bool spill_tried_ = false;
};

struct InSituOptions {
  const FileType* target = nullptr;  // required
  RecipeOptions recipe;
  unsigned threads = 1;
  // Source bytes placed so far of the total, after each tensor.
  std::function<void(uint64_t done, uint64_t total)> progress;
};

// What `--isq TYPE` asks for: a llama-quantize file type ("Q4_K_M": its per-tensor recipe) or a
// tensor type ("Q4_K", "Q8_0": every weight the recipes quantize gets that type), converted by
// `threads` workers (0: every hardware thread) with a progress bar on stderr labelled `label`.
// Throws std::invalid_argument naming the choices for any other TYPE; nullopt for "" (no --isq).
std::optional<InSituOptions> in_situ_options(std::string_view type, unsigned threads,
                                             std::string label);

// Every tensor with its bytes in place: a mapping's stay where they are, filled ones get a
// buffer; with `isq`, tensors the recipe quantizes are converted into buffers instead and
// `metadata` gains general.file_type and general.quantization_version. Throws gguf::Error
// naming `label` and the tensor when a conversion cannot be done (checked before any work).
std::vector<gguf::TensorInfo> place_tensors(std::vector<SourceTensor> sources,
                                            std::vector<gguf::KeyValue>& metadata,
                                            const InSituOptions* isq, TensorBuffers& buffers,
                                            const std::string& label);

// The model as a File: `sources` placed (place_tensors) into buffers the File owns, beside
// `keep_alive` (what the sources point into: a mapped GGUF, a safetensors checkpoint).
gguf::File assemble_placed(std::vector<SourceTensor> sources, std::vector<gguf::KeyValue> metadata,
                           const InSituOptions* isq, std::shared_ptr<const void> keep_alive,
                           const std::string& label);

}  // namespace zen::quant
