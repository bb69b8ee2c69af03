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

// Value i of an F32, F16 or BF16 checkpoint tensor; throws naming any other dtype.
float element(const safetensors::Tensor& t, uint64_t i);

// ZEN_HF_ROPE_PAIRS: rows h*d + j*(d/2) + i (transformers' rotate-half order) move to
// h*d + 2*i + j (GGUF's adjacent pairs); `rows` is a whole number of heads of d rows.
void rope_pair_rows(const uint8_t* src, uint8_t* dst, uint64_t rows, uint64_t d,
                    uint64_t row_bytes);
// The head dimension ZEN_HF_ROPE_PAIRS permutes by, from the mapped metadata (0: unknown).
uint64_t rope_head_dim(const std::vector<gguf::KeyValue>& metadata, const std::string& arch);

}  // namespace zen::hf
