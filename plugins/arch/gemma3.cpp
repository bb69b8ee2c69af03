// Gemma 3 (text): embeddings scaled by sqrt(n_embd); "sandwich" RMSNorms around both attention
// and feed-forward (pre-norm, then a post-norm of the block's output before the residual);
// per-head q/k RMSNorm; GeGLU with tanh GELU; tied output head. Local sliding-window layers
// (rope base rope.freq_base_swa, default 10000) interleave with global layers (rope.freq_base,
// with any linear scaling): layer il is global when (il + 1) % sliding_window_pattern == 0
// (pattern 6 when the file does not say, as Gemma 3 ships). GGUF norm weights already include
// Gemma's "+ 1". The q.k scale is 1 / sqrt(query_pre_attn_scalar), which is the head dim for
// every Gemma 3 size but 27B, where it is n_embd / n_head.
//
// EmbeddingGemma ("gemma-embedding") is the same stack run as an encoder: bidirectional
// attention (a sliding layer sees keys fewer than window / 2 + 1 positions away on either
// side, as transformers' use_bidirectional_attention does), mean pooling, then
// sentence-transformers' two Dense projections (dense_2, dense_3; no bias, no activation). The
// runtime normalizes.
#include <string>
#include <vector>

#include "decoder.hpp"

namespace {

class Gemma3 {
 public:
  static constexpr const char* kNames[] = {"gemma3", "Gemma3ForCausalLM", "gemma-embedding"};
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
      : attn_(m, ZEN_ROPE_NEOX, 1e-6f),
        head_(m, attn_.n_embd),
        embedding_(m, attn_.n_embd, embedding_default(m)),
        causal_(m.flag("{arch}.attention.causal", !embedding_.pooling)) {
    attn_.qk_norm = true;
    n_ff_ = m.u32("{arch}.feed_forward_length");
    // Bidirectional sliding layers see keys fewer than window / 2 + 1 positions away on either
    // side: the file keeps config.json's sliding_window, which transformers halves this way
    // for use_bidirectional_attention (Gemma3TextConfig).
    uint32_t window = m.u32("{arch}.attention.sliding_window", 0);
    if (!causal_ && window > 0) window = window / 2 + 1;
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
    int64_t width = attn_.n_embd;
    for (const char* dense : {"dense_2.weight", "dense_3.weight"}) {
      if (!embedding_.pooling || !m.has_tensor(dense)) continue;
      m.expect(dense, {width, m.shape(dense)[1]});
      width = m.shape(dense)[1];
      dense_.push_back(dense);
    }
  }

  uint32_t n_layers() const { return attn_.n_layer; }
  zen::CacheRows cache_rows(uint32_t) const { return attn_.cache_rows(); }
  zen_model_kind kind() const { return embedding_.kind(); }

  void build(zen::Graph& g, const zen_batch& b) const {
    if (embedding_.pooling) return encode(g, b);
    zen::BatchInputs in(g, b);
    zen_t x = g.get_rows(g.weight("token_embd.weight"), in.tokens);
    // Looked-up rows are scaled; given rows (a media encoder's) come as the decoder reads them.
    x = in.with_given(g.scale(x, std::sqrt(static_cast<float>(attn_.n_embd))));
    for (uint32_t il = 0; il < attn_.n_layer; ++il) {
      const zen::Rope& rope = window_[il] > 0 ? local_rope_ : attn_.rope;
      zen_t h = g.name(g.rms_norm(x, w(g, il, "attn_norm.weight"), attn_.eps), "attn_norm", il);
      zen_t a = attn_.block(g, in, il, h, rope, in.mask(window_[il]));
      if (il + 1 == attn_.n_layer) {  // only the rows whose logits are wanted go further
        a = g.get_rows(a, in.out_ids);
        x = g.get_rows(x, in.out_ids);
      }
      x = rest_of_layer(g, il, x, a);
    }
    g.output(head_.logits(g, x, attn_.eps), "logits");
  }

 private:
  static std::optional<zen::Pooling> embedding_default(const zen::ModelInfo& m) {
    if (m.str("general.architecture", "") == "gemma-embedding") return zen::Pooling::kMean;
    return std::nullopt;
  }
  static zen_t w(zen::Graph& g, uint32_t il, const char* s) {
    return g.weight(zen::layer_tensor(il, s));
  }
  // After attention a [n_head * v_dim, T]: the output projection, both post-norms, the GeGLU
  // feed-forward and the residuals.
  zen_t rest_of_layer(zen::Graph& g, uint32_t il, zen_t x, zen_t a) const {
    const float eps = attn_.eps;
    a = g.rms_norm(g.matmul(w(g, il, "attn_output.weight"), a),
                   w(g, il, "post_attention_norm.weight"), eps);
    x = g.add(x, a);
    zen_t f = zen::gated_ffn(g, g.rms_norm(x, w(g, il, "ffn_norm.weight"), eps),
                             w(g, il, "ffn_gate.weight"), w(g, il, "ffn_up.weight"),
                             w(g, il, "ffn_down.weight"), /*GeGLU tanh*/ 1);
    f = g.name(g.rms_norm(f, w(g, il, "post_ffw_norm.weight"), eps), "ffn_out", il);
    return g.name(g.add(x, f), "l_out", il);
  }
  // The embedding pass over whole sequences (EmbeddingGemma, or a gemma3 file with a pooling
  // type): no cache, every layer's mask from the batch alone.
  void encode(zen::Graph& g, const zen_batch& b) const {
    zen::EncoderInputs in(g, b);
    zen_t x = g.get_rows(g.weight("token_embd.weight"), in.tokens);
    x = g.scale(x, std::sqrt(static_cast<float>(attn_.n_embd)));
    const zen_t rows = embedding_.picked_rows(in);
    for (uint32_t il = 0; il < attn_.n_layer; ++il) {
      const zen::Rope& rope = window_[il] > 0 ? local_rope_ : attn_.rope;
      zen_t h = g.name(g.rms_norm(x, w(g, il, "attn_norm.weight"), attn_.eps), "attn_norm", il);
      zen_t a = attn_.encode_block(g, in, il, h, rope, in.mask(causal_, window_[il]));
      if (il + 1 == attn_.n_layer && rows >= 0) {
        a = g.get_rows(a, rows);
        x = g.get_rows(x, rows);
      }
      x = rest_of_layer(g, il, x, a);
    }
    x = g.rms_norm(x, g.weight("output_norm.weight"), attn_.eps);
    x = embedding_.pooled(g, in, x);
    for (const std::string& dense : dense_) x = g.matmul(g.weight(dense), x);
    g.output(x, "embeddings");
  }

  zen_arch::Attention attn_;
  zen_arch::OutputHead head_;
  zen_arch::EmbeddingHead embedding_;
  bool causal_ = true;              // false: EmbeddingGemma's bidirectional attention
  std::vector<std::string> dense_;  // EmbeddingGemma's projections after pooling
  int64_t n_ff_ = 0;
  std::vector<uint32_t> window_;  // per layer: sliding window, 0 = global attention
  zen::Rope local_rope_;
};

}  // namespace

ZEN_EXPORT_ARCH(Gemma3, "gemma3", "0.1.0")
