// A served model's own sampler defaults: the general.sampling.* keys (a Hugging Face
// directory's generation_config.json becomes them, and a GGUF may carry them, as llama.cpp's
// converter writes them). A request's sampler fields that it left out take these values, as
// vLLM and Ollama serve a model with its publisher's settings (zen_sampling_field, zen/task.h).
#pragma once

#include <cstdint>
#include <optional>

#include "gguf/gguf.h"
#include "sampler/params.h"

namespace zen::serving {

struct SamplingDefaults {
  std::optional<float> temperature, top_p, min_p, repeat_penalty;
  std::optional<int32_t> top_k;

  // Keys of the wrong type or out of range are ignored (the request's values stay).
  static SamplingDefaults from(const gguf::File& file);
  // Fills the fields whose zen_sampling_field bit is clear in `given`.
  void apply(sampling::Params& p, uint32_t given) const;
};

}  // namespace zen::serving
