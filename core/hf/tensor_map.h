// A safetensors checkpoint -> the GGUF tensors an architecture plugin reads, through its
// zen_hf_tensor rows. Matrices stay where the checkpoint maps them (zero copy, F32/F16/BF16 as
// published); 1-D tensors (norms, biases) become F32 as GGUF converters write them; a row's
// transform (rope pair order, Gemma's "+ 1", stacked experts, Llama 3 rope factors) makes a
// converted copy, written only when the tensor is placed (quant/in_situ.h), so in-situ
// quantization never holds more than one of them. A checkpoint tensor no row maps is an error:
// dropping it silently (a bias, an extra norm) would give a model that runs and answers wrongly.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <zen/arch.h>

#include "gguf/gguf.h"
#include "quant/in_situ.h"
#include "safetensors/checkpoint.h"

namespace zen::hf {

struct MappedTensors {
  std::vector<quant::SourceTensor> tensors;                   // in the plugin's row order
  std::shared_ptr<const safetensors::Checkpoint> checkpoint;  // what they point into
};

// `metadata` holds the hyperparameters already mapped ({arch}.block_count, expert_count,
// attention.key_length, rope.*), which expand {L} and {E} and drive the transforms. Throws
// std::runtime_error naming the tensor.
MappedTensors map_tensors(safetensors::Checkpoint checkpoint, const zen_hf_map& map,
                          const std::vector<gguf::KeyValue>& metadata, const std::string& arch);

}  // namespace zen::hf
