// What the decoder-only architectures here share: the attention hyperparameters every
// Llama-descended GGUF carries, the checks of a layer's attention tensors, and the attention
// block itself (q/k/v projections, optional per-head q/k RMSNorm, rope, attention over the KV
// cache, output projection). Each architecture file adds only what is its own.
#pragma once

#include <cmath>
#include <optional>
#include <string>

#include <zen/arch_blocks.hpp>

namespace zen_arch {

// How a Llama-descended Hugging Face config.json and checkpoint map onto the GGUF names above
// (zen/arch.h, ABI 1.6); each plugin adds its own rows. Llama 3 scaling arrives as the factors
// of rope_freqs.weight, generated from these keys as llama.cpp's converter does.
inline constexpr auto kDecoderHfKeys = std::to_array<zen_hf_key>({
    {"{arch}.embedding_length", "hidden_size", ZEN_HP_U32, nullptr},
    {"{arch}.block_count", "num_hidden_layers", ZEN_HP_U32, nullptr},
    {"{arch}.attention.head_count", "num_attention_heads", ZEN_HP_U32, nullptr},
    {"{arch}.attention.head_count_kv", "num_key_value_heads", ZEN_HP_U32, nullptr},
    {"{arch}.attention.key_length", "head_dim", ZEN_HP_U32, nullptr},
    {"{arch}.attention.value_length", "head_dim", ZEN_HP_U32, nullptr},
    {"{arch}.feed_forward_length", "intermediate_size", ZEN_HP_U32, nullptr},
    {"{arch}.attention.layer_norm_rms_epsilon", "rms_norm_eps", ZEN_HP_F32, nullptr},
    {"{arch}.context_length", "max_position_embeddings", ZEN_HP_U32, nullptr},
    {"{arch}.vocab_size", "vocab_size", ZEN_HP_U32, nullptr},
    {"{arch}.rope.freq_base", "rope_theta|rope_parameters.rope_theta", ZEN_HP_F32, nullptr},
    {"{arch}.rope.scaling.type",
     "rope_scaling.rope_type|rope_scaling.type|rope_parameters.rope_type", ZEN_HP_STRING, nullptr},
    {"{arch}.rope.scaling.factor", "rope_scaling.factor|rope_parameters.factor", ZEN_HP_F32,
     nullptr},
    {"{arch}.rope.scaling.original_context_length",
     "rope_scaling.original_max_position_embeddings|"
     "rope_parameters.original_max_position_embeddings",
     ZEN_HP_U32, nullptr},
    {"{arch}.rope.scaling.low_freq_factor",
     "rope_scaling.low_freq_factor|rope_parameters.low_freq_factor", ZEN_HP_F32, nullptr},
    {"{arch}.rope.scaling.high_freq_factor",
     "rope_scaling.high_freq_factor|rope_parameters.high_freq_factor", ZEN_HP_F32, nullptr},
});

// The decoder's tensors; q_and_k says how q_proj and k_proj rows are laid out for its rope.
// Rows a checkpoint lacks are left out (a mixture of experts has no dense mlp.gate_proj).
constexpr std::array<zen_hf_tensor, 15> decoder_hf_tensors(zen_hf_transform q_and_k) {
  return {{
      {"token_embd.weight", "model.embed_tokens.weight", ZEN_HF_AS_IS},
      {"output_norm.weight", "model.norm.weight", ZEN_HF_AS_IS},
      {"output.weight", "lm_head.weight", ZEN_HF_AS_IS},
      {"rope_freqs.weight", "", ZEN_HF_LLAMA3_ROPE_FACTORS},
      {"blk.{L}.attn_norm.weight", "model.layers.{L}.input_layernorm.weight", ZEN_HF_AS_IS},
      {"blk.{L}.attn_q.weight", "model.layers.{L}.self_attn.q_proj.weight", q_and_k},
      {"blk.{L}.attn_k.weight", "model.layers.{L}.self_attn.k_proj.weight", q_and_k},
      {"blk.{L}.attn_v.weight", "model.layers.{L}.self_attn.v_proj.weight", ZEN_HF_AS_IS},
      {"blk.{L}.attn_output.weight", "model.layers.{L}.self_attn.o_proj.weight", ZEN_HF_AS_IS},
      {"blk.{L}.attn_q_norm.weight", "model.layers.{L}.self_attn.q_norm.weight", ZEN_HF_AS_IS},
      {"blk.{L}.attn_k_norm.weight", "model.layers.{L}.self_attn.k_norm.weight", ZEN_HF_AS_IS},
      {"blk.{L}.ffn_norm.weight", "model.layers.{L}.post_attention_layernorm.weight", ZEN_HF_AS_IS},
      {"blk.{L}.ffn_gate.weight", "model.layers.{L}.mlp.gate_proj.weight", ZEN_HF_AS_IS},
      {"blk.{L}.ffn_up.weight", "model.layers.{L}.mlp.up_proj.weight", ZEN_HF_AS_IS},
      {"blk.{L}.ffn_down.weight", "model.layers.{L}.mlp.down_proj.weight", ZEN_HF_AS_IS},
  }};
}

struct Attention {
  int64_t n_embd = 0;
  uint32_t n_layer = 0, n_head = 0, n_head_kv = 0, head_dim = 0, v_dim = 0;
  float eps = 1e-5f;
  bool qk_norm = false;  // attn_q_norm / attn_k_norm [head_dim] (Qwen3, Gemma 3)
  zen::Rope rope;
  float scale = 0.0f;  // q.k scale; 1 / sqrt(head_dim) unless the model says otherwise

  // Reads {arch}.embedding_length, block_count, attention.*, rope.* with Llama's defaults.
  Attention(const zen::ModelInfo& m, zen_rope_mode mode, float default_eps) {
    n_embd = m.u32("{arch}.embedding_length");
    n_layer = m.u32("{arch}.block_count");
    n_head = m.u32("{arch}.attention.head_count");
    n_head_kv = m.u32("{arch}.attention.head_count_kv", n_head);
    if (n_head == 0 || n_head_kv == 0 || n_head % n_head_kv != 0)
      throw zen::Error(ZEN_ERR_INVALID_ARG, "attention.head_count " + std::to_string(n_head) +
                                                " is not a multiple of head_count_kv " +
                                                std::to_string(n_head_kv));
    head_dim = m.u32("{arch}.attention.key_length", static_cast<uint32_t>(n_embd / n_head));
    v_dim = m.u32("{arch}.attention.value_length", head_dim);
    eps = m.f32("{arch}.attention.layer_norm_rms_epsilon", default_eps);
    rope.n_dims = static_cast<int>(m.u32("{arch}.rope.dimension_count", head_dim));
    rope.mode = mode;
    rope.base = m.f32("{arch}.rope.freq_base", 10000.0f);
    const std::string scaling = m.str("{arch}.rope.scaling.type", "none");
    if (scaling == "linear") {
      const float factor = m.f32("{arch}.rope.scaling.factor", 1.0f);
      if (factor > 0.0f) rope.scale = 1.0f / factor;
    } else if (scaling != "none" && scaling != "default" && scaling != "llama3") {
      throw zen::Error(ZEN_ERR_UNSUPPORTED, "rope scaling '" + scaling + "' is not supported");
    }
    scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  }

  zen::CacheRows cache_rows() const { return {n_head_kv * head_dim, n_head_kv * v_dim}; }

  // Checks layer il's attention tensors (qk_norm must be set first).
  void expect_layer(const zen::ModelInfo& m, uint32_t il) const {
    auto t = [il](const char* s) { return zen::layer_tensor(il, s); };
    const int64_t kv = int64_t{n_head_kv} * head_dim;
    m.expect(t("attn_norm.weight"), {n_embd});
    m.expect(t("attn_q.weight"), {n_embd, int64_t{n_head} * head_dim});
    m.expect(t("attn_k.weight"), {n_embd, kv});
    m.expect(t("attn_v.weight"), {n_embd, int64_t{n_head_kv} * v_dim});
    m.expect(t("attn_output.weight"), {int64_t{n_head} * v_dim, n_embd});
    if (qk_norm) {
      m.expect(t("attn_q_norm.weight"), {head_dim});
      m.expect(t("attn_k_norm.weight"), {head_dim});
    }
  }

  // Self-attention of normed hidden state h [n_embd, T] -> [n_head * v_dim, T] (before the
  // output projection). `r` and `mask` let a layer use its own rope base or sliding window.
  zen_t block(zen::Graph& g, zen::BatchInputs& in, uint32_t il, zen_t h, const zen::Rope& r,
              zen_t mask) const {
    const Qkv a = qkv(g, il, h, in.positions, r);
    return zen::cached_attention(g, in, il, a.q, a.k, a.v, mask, scale);
  }
  // The same without a cache: an embedding or reranking model's pass over whole sequences.
  zen_t encode_block(zen::Graph& g, zen::EncoderInputs& in, uint32_t il, zen_t h,
                     const zen::Rope& r, zen_t mask) const {
    const Qkv a = qkv(g, il, h, in.positions, r);
    return zen::self_attention(g, a.q, a.k, a.v, mask, scale);
  }

 private:
  struct Qkv {
    zen_t q, k, v;
  };
  Qkv qkv(zen::Graph& g, uint32_t il, zen_t h, zen_t positions, const zen::Rope& r) const {
    auto w = [&](const char* s) { return g.weight(zen::layer_tensor(il, s)); };
    zen_t q = g.heads(g.matmul(w("attn_q.weight"), h), head_dim);
    zen_t k = g.heads(g.matmul(w("attn_k.weight"), h), head_dim);
    zen_t v = g.heads(g.matmul(w("attn_v.weight"), h), v_dim);
    // Each head's norm right before its rope: a device may compute the two in one pass
    // (zen/fusion.hpp norm_mul_rope).
    if (qk_norm) q = g.rms_norm(q, w("attn_q_norm.weight"), eps);
    q = zen::rope(g, q, positions, r);
    if (qk_norm) k = g.rms_norm(k, w("attn_k_norm.weight"), eps);
    k = zen::rope(g, k, positions, r);
    return {q, k, v};
  }
};

// What an embedding or reranking decoder (Qwen3-Embedding, Qwen3-Reranker, EmbeddingGemma)
// puts after its final norm: {arch}.pooling_type pools the hidden states (absent: a text
// generator); rank is a reranker's cls.output [n_embd, labels] on the pooled row (Qwen3-Reranker:
// the lm_head rows of "yes" and "no", as llama.cpp's converter writes them).
struct EmbeddingHead {
  std::optional<zen::Pooling> pooling;  // nullopt: not an embedding model
  int64_t n_labels = 0;

  EmbeddingHead(const zen::ModelInfo& m, int64_t n_embd, std::optional<zen::Pooling> fallback) {
    constexpr uint32_t kAbsent = UINT32_MAX;
    if (fallback || m.u32("{arch}.pooling_type", kAbsent) != kAbsent)
      pooling = zen::pooling_type(m, fallback.value_or(zen::Pooling::kLast));
    if (pooling == zen::Pooling::kRank) {
      n_labels = m.shape("cls.output.weight")[1];
      m.expect("cls.output.weight", {n_embd, n_labels});
    }
  }
  zen_model_kind kind() const { return pooling ? ZEN_MODEL_ENCODER : ZEN_MODEL_DECODER; }
  // The rows a pooling by token reads (last, CLS); -1 for mean, which reads them all.
  zen_t picked_rows(zen::EncoderInputs& in) const {
    if (pooling == zen::Pooling::kMean) return -1;
    return in.edge(pooling != zen::Pooling::kCls);
  }
  // x [n_embd, T], or the picked rows [n_embd, S] -> [n_embd or labels, S].
  zen_t pooled(zen::Graph& g, zen::EncoderInputs& in, zen_t x) const {
    if (pooling == zen::Pooling::kMean) x = in.pool(x, *pooling);
    if (pooling == zen::Pooling::kRank) x = g.matmul(g.weight("cls.output.weight"), x);
    return x;
  }
};

// The output head: final norm, then output.weight or (tied) the token embedding.
struct OutputHead {
  int64_t n_vocab = 0;
  bool tied = false;

  OutputHead(const zen::ModelInfo& m, int64_t n_embd) {
    n_vocab = m.shape("token_embd.weight")[1];
    m.expect("token_embd.weight", {n_embd, n_vocab});
    m.expect("output_norm.weight", {n_embd});
    tied = !m.optional("output.weight", {n_embd, n_vocab});
  }
  zen_t logits(zen::Graph& g, zen_t x, float eps) const {
    x = g.name(g.rms_norm(x, g.weight("output_norm.weight"), eps), "result_norm");
    return g.matmul(g.weight(tied ? "token_embd.weight" : "output.weight"), x);
  }
};

// The Llama-style decoder: x += attn(norm(x)); x += ffn(norm(x)); then the output head.
// Named for dumps (llama.cpp's names): attn_norm-<il>, ffn_out-<il>, l_out-<il>, result_norm. The
// feed-forward is SwiGLU unless a subclass replaces ffn() (mixture of experts). Rope
// frequency factors (rope_freqs.weight, llama3 scaling) are used when the file has them.
class Decoder {
 public:
  Decoder(const zen::ModelInfo& m, zen_rope_mode mode, float default_eps, bool qk_norm,
          bool dense_ffn = true)
      : attn_(m, mode, default_eps), head_(m, attn_.n_embd), embedding_(m, attn_.n_embd, {}) {
    attn_.qk_norm = qk_norm;
    freqs_ = m.optional("rope_freqs.weight", {attn_.rope.n_dims / 2});
    if (dense_ffn) n_ff_ = m.u32("{arch}.feed_forward_length");
    for (uint32_t il = 0; il < attn_.n_layer; ++il) {
      attn_.expect_layer(m, il);
      auto t = [il](const char* s) { return zen::layer_tensor(il, s); };
      m.expect(t("ffn_norm.weight"), {attn_.n_embd});
      if (!dense_ffn) continue;
      m.expect(t("ffn_gate.weight"), {attn_.n_embd, n_ff_});
      m.expect(t("ffn_up.weight"), {attn_.n_embd, n_ff_});
      m.expect(t("ffn_down.weight"), {n_ff_, attn_.n_embd});
    }
  }
  virtual ~Decoder() = default;

  uint32_t n_layers() const { return attn_.n_layer; }
  zen::CacheRows cache_rows(uint32_t) const { return attn_.cache_rows(); }
  zen_model_kind kind() const { return embedding_.kind(); }

  void build(zen::Graph& g, const zen_batch& b) const {
    if (embedding_.pooling) return encode(g, b);
    zen::BatchInputs in(g, b);
    zen::Rope rope = attn_.rope;
    if (freqs_) rope.freq_factors = g.weight("rope_freqs.weight");
    zen_t mask = in.mask();
    zen_t x = in.with_given(g.get_rows(g.weight("token_embd.weight"), in.tokens));
    for (uint32_t il = 0; il < attn_.n_layer; ++il) {
      auto w = [&](const char* s) { return g.weight(zen::layer_tensor(il, s)); };
      zen_t h = g.name(g.rms_norm(x, w("attn_norm.weight"), attn_.eps), "attn_norm", il);
      zen_t a = attn_.block(g, in, il, h, rope, mask);
      if (il + 1 == attn_.n_layer) {  // only the rows whose logits are wanted go further
        a = g.get_rows(a, in.out_ids);
        x = g.get_rows(x, in.out_ids);
      }
      x = g.add(x, g.matmul(w("attn_output.weight"), a));
      zen_t f = g.name(ffn(g, il, g.rms_norm(x, w("ffn_norm.weight"), attn_.eps)), "ffn_out", il);
      x = g.name(g.add(x, f), "l_out", il);
    }
    g.output(head_.logits(g, x, attn_.eps), "logits");
  }

  // An embedding or reranking model's pass: causal attention within each whole sequence, the
  // final norm, then the pooling head. Pooling by token sends only its rows through the last
  // layer's output projection and feed-forward.
  void encode(zen::Graph& g, const zen_batch& b) const {
    zen::EncoderInputs in(g, b);
    zen::Rope rope = attn_.rope;
    if (freqs_) rope.freq_factors = g.weight("rope_freqs.weight");
    const zen_t mask = in.mask(/*causal=*/true);
    const zen_t rows = embedding_.picked_rows(in);
    zen_t x = g.get_rows(g.weight("token_embd.weight"), in.tokens);
    for (uint32_t il = 0; il < attn_.n_layer; ++il) {
      auto w = [&](const char* s) { return g.weight(zen::layer_tensor(il, s)); };
      zen_t h = g.name(g.rms_norm(x, w("attn_norm.weight"), attn_.eps), "attn_norm", il);
      zen_t a = attn_.encode_block(g, in, il, h, rope, mask);
      if (il + 1 == attn_.n_layer && rows >= 0) {
        a = g.get_rows(a, rows);
        x = g.get_rows(x, rows);
      }
      x = g.add(x, g.matmul(w("attn_output.weight"), a));
      zen_t f = g.name(ffn(g, il, g.rms_norm(x, w("ffn_norm.weight"), attn_.eps)), "ffn_out", il);
      x = g.name(g.add(x, f), "l_out", il);
    }
    x = g.rms_norm(x, g.weight("output_norm.weight"), attn_.eps);
    g.output(embedding_.pooled(g, in, x), "embeddings");
  }

 protected:
  // Feed-forward of layer il on the normed hidden state h [n_embd, T].
  virtual zen_t ffn(zen::Graph& g, uint32_t il, zen_t h) const {
    auto w = [&](const char* s) { return g.weight(zen::layer_tensor(il, s)); };
    return zen::gated_ffn(g, h, w("ffn_gate.weight"), w("ffn_up.weight"), w("ffn_down.weight"));
  }

  Attention attn_;
  OutputHead head_;
  EmbeddingHead embedding_;
  int64_t n_ff_ = 0;
  bool freqs_ = false;
};

}  // namespace zen_arch
