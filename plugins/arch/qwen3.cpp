// Qwen3 (dense): the Llama layout (zen_arch::Decoder) plus a per-head RMSNorm on q and k
// before rope, NEOX-style rope (rotating the two halves of each head), GQA, and usually a tied
// output head.
#include "decoder.hpp"

namespace {

class Qwen3 : public zen_arch::Decoder {
 public:
  static constexpr const char* kNames[] = {"qwen3", "Qwen3ForCausalLM"};
  static constexpr auto kHfTensors = zen_arch::decoder_hf_tensors(ZEN_HF_AS_IS);
  static constexpr zen_hf_map kHf = zen::hf_map(zen_arch::kDecoderHfKeys, kHfTensors);
  explicit Qwen3(const zen::ModelInfo& m) : Decoder(m, ZEN_ROPE_NEOX, 1e-6f, true) {}
};

}  // namespace

ZEN_EXPORT_ARCH(Qwen3, "qwen3", "0.1.0")
