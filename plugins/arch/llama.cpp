// Llama 2 / 3.x (and the many models that reuse general.architecture = "llama"): pre-norm
// decoder with RMSNorm, GQA attention, SwiGLU feed-forward (zen_arch::Decoder). Rope rotates
// adjacent pairs because GGUF converters permute attn_q / attn_k rows for it; llama3 context
// scaling arrives as the rope_freqs.weight per-pair factors, linear scaling as
// rope.scaling.factor. The output head is output.weight, or the token embedding when tied.
#include "decoder.hpp"

namespace {

class Llama : public zen_arch::Decoder {
 public:
  static constexpr const char* kNames[] = {"llama", "LlamaForCausalLM"};
  // Hugging Face's q/k rows rotate halves; GGUF's (and so this plugin's) adjacent pairs.
  static constexpr auto kHfTensors = zen_arch::decoder_hf_tensors(ZEN_HF_ROPE_PAIRS);
  static constexpr zen_hf_map kHf = zen::hf_map(zen_arch::kDecoderHfKeys, kHfTensors);
  explicit Llama(const zen::ModelInfo& m) : Decoder(m, ZEN_ROPE_NORMAL, 1e-5f, false) {}
};

}  // namespace

ZEN_EXPORT_ARCH(Llama, "llama", "0.1.0")
