// Quantization recipes: which type each tensor of a model gets when the model is quantized to
// a llama-quantize file type such as Q4_K_M. The rules follow llama.cpp's (so a Q4_K_M file
// made here has the same tensor types as one made by llama-quantize from the same input) and
// are written down in docs/QUANTIZE.md. Pure functions of names and shapes: no file I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <zen/types.h>

namespace zen::quant {

// A target named on the command line ("Q4_K_M").
struct FileType {
  std::string_view name;
  uint32_t id;    // general.file_type (llama.cpp's llama_ftype)
  zen_type base;  // the type most weights get
};

// Every supported target, in the order `zen-engine quantize --help` lists them.
std::span<const FileType> file_types();
// Case-insensitive lookup; nullptr if unknown.
const FileType* find_file_type(std::string_view name);

// The hyperparameters some rules depend on (0 = unknown).
struct ModelShape {
  std::string arch;  // general.architecture
  uint32_t n_layer = 0;
  uint32_t n_head = 0;
  uint32_t n_head_kv = 0;
  uint32_t n_expert = 0;
};

struct TensorDesc {
  std::string_view name;
  zen_type type;
  std::span<const uint64_t> ne;  // ne[0] innermost; size() = number of dimensions
};

struct RecipeOptions {
  bool pure = false;                    // every quantized tensor gets the base type (no mixes)
  bool leave_output = false;            // output.weight keeps its type
  std::optional<zen_type> output_type;  // for output.weight (or tied token_embd)
  std::optional<zen_type> token_embedding_type;  // for token_embd.weight
};

struct TensorPlan {
  zen_type type;       // type in the output file; equal to the input type = copied unchanged
  std::string reason;  // why, when not simply the base type ("1-D", "attn_v, more bits", ...)
};

// Whether llama.cpp's rules quantize this tensor at all (2-D+ weights except norms, position
// embeddings, MoE routers and a few small special tensors).
bool is_quantizable(const TensorDesc& t);

// One plan per tensor, in the given (file) order.
std::vector<TensorPlan> plan_quantization(const FileType& target, const ModelShape& model,
                                          std::span<const TensorDesc> tensors,
                                          const RecipeOptions& options = {});

}  // namespace zen::quant
