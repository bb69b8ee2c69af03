// LoRA adapters: low-rank corrections W + s * B A to a base model's matrices, loaded from
// llama.cpp's GGUF adapter layout (general.type "adapter", "<weight>.lora_a" [in, r] and
// "<weight>.lora_b" [r, out], adapter.lora.alpha) or from a PEFT directory (adapter_config.json,
// adapter_model.safetensors, names mapped through the architecture plugin's zen_hf_tensor rows,
// as the plugin's Hugging Face directories are). Applied in the graph (lora/apply.h), never
// merged into the weights, so one loaded model serves several adapters at once.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <zen/arch.h>
#include <zen/types.h>

#include "gguf/gguf.h"

namespace zen::lora {

// One adapted matrix: a [in, r] (r rows of `in`), b [r, out], both of `type` (the file's when
// it is F32, F16 or BF16 for both, else F32), and `fold` (alpha / r, or PEFT's per-module
// scaling): the correction at scale s is fold * s * B (A x).
struct Pair {
  int64_t in = 0, out = 0, rank = 0;
  zen_type type = ZEN_TYPE_F32;
  std::vector<uint8_t> a, b;
  float fold = 1.0f;
};

struct Adapter {
  std::string name;  // what requests select it by: the file's stem or the directory's name
  std::string path;
  std::string format;                              // "gguf" or "peft"
  std::map<std::string, Pair, std::less<>> pairs;  // by the base weight's GGUF name
  // The fold most pairs share (all, unless PEFT patterns vary it): it goes into the per-token
  // scales, so only pairs with another fold need a scale op of their own.
  float fold = 1.0f;
  uint64_t bytes() const;
};

// Loads the adapter at `path` (a GGUF file, or a PEFT directory or its .safetensors file) for
// the model `base` (its metadata names the architecture; `hf` is that plugin's row table, for
// PEFT names; may be NULL). Every pair is checked against the base weight it adapts (present,
// a matrix, shapes that multiply). Throws zen::Error naming the file and the tensor.
Adapter load(const std::filesystem::path& path, const gguf::File& base, const zen_hf_map* hf);

// An adapter as a model carries it: loaded once, shared by its contexts.
using Adapters = std::vector<std::shared_ptr<const Adapter>>;

}  // namespace zen::lora
