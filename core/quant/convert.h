// What converting a model's tensors needs, whether the result goes to a file (quantize_file.h)
// or stays in memory as the model loads (in_situ.h): the hyperparameters the recipes read, the
// checks that refuse a conversion before any work starts, and the multithreaded row converter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gguf/gguf.h"
#include "quant/recipe.h"

namespace zen::quant {

// GGML_QNT_VERSION: the revision of the quantized block formats these files use.
inline constexpr uint32_t kQuantizationVersion = 2;

ModelShape model_shape(const gguf::File& f);

// Types the reference codecs can produce, except the activation-only formats.
bool can_quantize_to(zen_type t);

// One plan per tensor of `in`, in its order, after refusing (gguf::Error naming the tensor)
// every conversion that could not be done: a type without a decoder, a row too long, a target
// without an encoder, an already quantized input unless allow_requantize, a split model part.
std::vector<TensorPlan> plan_conversions(const gguf::File& in, const FileType& target,
                                         const RecipeOptions& recipe, bool allow_requantize,
                                         const std::string& in_label);

// Converts rows [first, first + n) of `t` to `to` into `dst`, with `threads` workers taking
// rows from a shared counter. Non-finite input values are refused: they would poison whole
// blocks of the output.
void convert_rows(const gguf::TensorInfo& t, zen_type to, uint64_t first, uint64_t n, uint8_t* dst,
                  unsigned threads);

}  // namespace zen::quant
