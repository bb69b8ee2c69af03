// Gemma 3 (text): embeddings scaled by sqrt(n_embd); "sandwich" RMSNorms around both attention
// and feed-forward (pre-norm, then a post-norm of the block's output before the residual);
// per-head q/k RMSNorm; GeGLU with tanh GELU; tied output head. Local sliding-window layers
// (rope base rope.freq_base_swa, default 10000) interleave with global layers (rope.freq_base,
// with any linear scaling): layer il is global when (il + 1) % sliding_window_pattern == 0
// (pattern 6 when the file does not say, as Gemma 3 ships). GGUF norm weights already include
// Gemma's "+ 1". The q.k scale is 1 / sqrt(query_pre_attn_scalar), which is the head dim for
// every Gemma 3 size but 27B, where it is n_embd / n_head.
#include <vector>

#include "decoder.hpp"

namespace {

class Gemma3 {
 public:
  static constexpr const char* kNames[] = {"gemma3", "Gemma3ForCausalLM"};
  // Hugging Face checkpoints store every norm weight as w - 1 (Gemma's RMSNorm scales by
  // 1 + w); the layer_types list says which layers slide.
  static constexpr auto kHfKeys = zen::concat(
      zen_arch::kDecoderHfKeys,
      std::to_array<zen_hf_key>({
          {"{arch}.rope.freq_base", "rope_parameters.full_attention.rope_theta", ZEN_HP_F32,
           nullptr},
          {"{arch}.rope.freq_base_swa",
           "rope_local_base_freq|rope_parameters.sliding_attention.rope_theta", ZEN_HP_F32,
           nullptr},
          {"{arch}.rope.scaling.type", "rope_parameters.full_attention.rope_type", ZEN_HP_STRING,
           nullptr},
          {"{arch}.rope.scaling.factor", "rope_parameters.full_attention.factor", ZEN_HP_F32,
           nullptr},
          {"{arch}.attention.sliding_window", "sliding_window", ZEN_HP_U32, nullptr},
          {"{arch}.attention.sliding_window_pattern", "layer_types", ZEN_HP_ARRAY_U32,
           "sliding_attention"},
          {"{arch}.attention.query_pre_attn_scalar", "query_pre_attn_scalar", ZEN_HP_F32, nullptr},
      }));
  static constexpr auto kHfTensors = std::to_array<zen_hf_tensor>({
      {"token_embd.weight", "model.embed_tokens.weight", ZEN_HF_AS_IS},
      {"output_norm.weight", "model.norm.weight", ZEN_HF_PLUS_ONE},
      {"blk.{L}.attn_norm.weight", "model.layers.{L}.input_layernorm.weight", ZEN_HF_PLUS_ONE},
      {"blk.{L}.attn_q.weight", "model.layers.{L}.self_attn.q_proj.weight", ZEN_HF_AS_IS},
      {"blk.{L}.attn_k.weight", "model.layers.{L}.self_attn.k_proj.weight", ZEN_HF_AS_IS},
      {"blk.{L}.attn_v.weight", "model.layers.{L}.self_attn.v_proj.weight", ZEN_HF_AS_IS},
      {"blk.{L}.attn_output.weight", "model.layers.{L}.self_attn.o_proj.weight", ZEN_HF_AS_IS},
      {"blk.{L}.attn_q_norm.weight", "model.layers.{L}.self_attn.q_norm.weight", ZEN_HF_PLUS_ONE},
      {"blk.{L}.attn_k_norm.weight", "model.layers.{L}.self_attn.k_norm.weight", ZEN_HF_PLUS_ONE},
      {"blk.{L}.post_attention_norm.weight", "model.layers.{L}.post_attention_layernorm.weight",
       ZEN_HF_PLUS_ONE},
      {"blk.{L}.ffn_norm.weight", "model.layers.{L}.pre_feedforward_layernorm.weight",
       ZEN_HF_PLUS_ONE},
      {"blk.{L}.ffn_gate.weight", "model.layers.{L}.mlp.gate_proj.weight", ZEN_HF_AS_IS},
      {"blk.{L}.ffn_up.weight", "model.layers.{L}.mlp.up_proj.weight", ZEN_HF_AS_IS},
      {"blk.{L}.ffn_down.weight", "model.layers.{L}.mlp.down_proj.weight", ZEN_HF_AS_IS},
      {"blk.{L}.post_ffw_norm.weight", "model.layers.{L}.post_feedforward_layernorm.weight",
       ZEN_HF_PLUS_ONE},
  });
  static constexpr zen_hf_map kHf = zen::hf_map(kHfKeys, kHfTensors);

  explicit Gemma3(const zen::ModelInfo& m)
      : attn_(m, ZEN_ROPE_NEOX, 1e-6f), head_(m, attn_.n_embd) {
    attn_.qk_norm = true;
    n_ff_ = m.u32("{arch}.feed_forward_length");
    const uint32_t window = m.u32("{arch}.attention.sliding_window", 0);
    // Which layers slide: a per-layer array when the file has one, else every layer but each
    // pattern-th (default 6).
    const char* kPattern = "{arch}.attention.sliding_window_pattern";
    const uint32_t pattern = m.u32(kPattern, 6);
    for (uint32_t il = 0; il < attn_.n_layer; ++il) {
      bool local = pattern > 0 && (il + 1) % pattern != 0;
      local = m.array_f32(kPattern, il, local ? 1.0f : 0.0f) != 0.0f;
      window_.push_back(window > 0 && local ? window : 0);
    }
    local_rope_ = attn_.rope;
    local_rope_.base = m.f32("{arch}.rope.freq_base_swa", 10000.0f);
    local_rope_.scale = 1.0f;
    const float pre_attn =
        m.f32("{arch}.attention.query_pre_attn_scalar",
              attn_.n_layer == 62 ? static_cast<float>(attn_.n_embd / attn_.n_head)
                                  : static_cast<float>(attn_.head_dim));
    attn_.scale = 1.0f / std::sqrt(pre_attn);
    for (uint32_t il = 0; il < attn_.n_layer; ++il) {
      attn_.expect_layer(m, il);
      auto t = [il](const char* s) { return zen::layer_tensor(il, s); };
      const int64_t d = attn_.n_embd;
      m.expect(t("post_attention_norm.weight"), {d});
      m.expect(t("ffn_norm.weight"), {d});
      m.expect(t("ffn_gate.weight"), {d, n_ff_});
      m.expect(t("ffn_up.weight"), {d, n_ff_});
      m.expect(t("ffn_down.weight"), {n_ff_, d});
      m.expect(t("post_ffw_norm.weight"), {d});
    }
  }

  uint32_t n_layers() const { return attn_.n_layer; }
  zen::CacheRows cache_rows(uint32_t) const { return attn_.cache_rows(); }

  void build(zen::Graph& g, const zen_batch& b) const {
    zen::BatchInputs in(g, b);
    const float eps = attn_.eps;
    zen_t x = g.get_rows(g.weight("token_embd.weight"), in.tokens);
    // Looked-up rows are scaled; given rows (a media encoder's) come as the decoder reads them.
    x = in.with_given(g.scale(x, std::sqrt(static_cast<float>(attn_.n_embd))));
    for (uint32_t il = 0; il < attn_.n_layer; ++il) {
      auto w = [&](const char* s) { return g.weight(zen::layer_tensor(il, s)); };
      const bool local = window_[il] > 0;
      zen_t h = g.name(g.rms_norm(x, w("attn_norm.weight"), eps), "attn_norm", il);
      zen_t a = attn_.block(g, in, il, h, local ? local_rope_ : attn_.rope, in.mask(window_[il]));
      if (il + 1 == attn_.n_layer) {  // only the rows whose logits are wanted go further
        a = g.get_rows(a, in.out_ids);
        x = g.get_rows(x, in.out_ids);
      }
      a = g.rms_norm(g.matmul(w("attn_output.weight"), a), w("post_attention_norm.weight"), eps);
      x = g.add(x, a);
      zen_t f = zen::gated_ffn(g, g.rms_norm(x, w("ffn_norm.weight"), eps), w("ffn_gate.weight"),
                               w("ffn_up.weight"), w("ffn_down.weight"), /*GeGLU tanh*/ 1);
      f = g.name(g.rms_norm(f, w("post_ffw_norm.weight"), eps), "ffn_out", il);
      x = g.name(g.add(x, f), "l_out", il);
    }
    g.output(head_.logits(g, x, eps), "logits");
  }

 private:
  zen_arch::Attention attn_;
  zen_arch::OutputHead head_;
  int64_t n_ff_ = 0;
  std::vector<uint32_t> window_;  // per layer: sliding window, 0 = global attention
  zen::Rope local_rope_;
};

}  // namespace

ZEN_EXPORT_ARCH(Gemma3, "gemma3", "0.1.0")
