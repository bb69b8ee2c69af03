// BERT-family encoders (BERT, MiniLM, BGE, ms-marco cross-encoders) as llama.cpp's converter
// writes them (general.architecture "bert"): learned absolute positions and token types, post-
// LayerNorm blocks with biases, exact (erf) GELU. The head is {arch}.pooling_type: mean (the
// default, as sentence-transformers' BERT models pool), CLS or last token give an embedding;
// rank is a cross-encoder's classifier on the CLS row: tanh(cls * x + b) (BERT's pooler), then
// cls.output, one score per label (BertForSequenceClassification).
#include <string>

#include <zen/arch_blocks.hpp>

namespace {

class Bert {
 public:
  static constexpr const char* kNames[] = {"bert", "BertModel"};
  static constexpr zen_model_kind kKind = ZEN_MODEL_ENCODER;
  static constexpr auto kHfKeys = std::to_array<zen_hf_key>({
      {"{arch}.embedding_length", "hidden_size", ZEN_HP_U32, nullptr},
      {"{arch}.block_count", "num_hidden_layers", ZEN_HP_U32, nullptr},
      {"{arch}.attention.head_count", "num_attention_heads", ZEN_HP_U32, nullptr},
      {"{arch}.feed_forward_length", "intermediate_size", ZEN_HP_U32, nullptr},
      {"{arch}.context_length", "max_position_embeddings", ZEN_HP_U32, nullptr},
      {"{arch}.attention.layer_norm_epsilon", "layer_norm_eps", ZEN_HP_F32, nullptr},
  });
  static constexpr auto kHfTensors = std::to_array<zen_hf_tensor>({
      {"token_embd.weight", "embeddings.word_embeddings.weight", ZEN_HF_AS_IS},
      {"position_embd.weight", "embeddings.position_embeddings.weight", ZEN_HF_AS_IS},
      {"token_types.weight", "embeddings.token_type_embeddings.weight", ZEN_HF_AS_IS},
      {"token_embd_norm.weight", "embeddings.LayerNorm.weight", ZEN_HF_AS_IS},
      {"token_embd_norm.bias", "embeddings.LayerNorm.bias", ZEN_HF_AS_IS},
      {"blk.{L}.attn_q.weight", "encoder.layer.{L}.attention.self.query.weight", ZEN_HF_AS_IS},
      {"blk.{L}.attn_q.bias", "encoder.layer.{L}.attention.self.query.bias", ZEN_HF_AS_IS},
      {"blk.{L}.attn_k.weight", "encoder.layer.{L}.attention.self.key.weight", ZEN_HF_AS_IS},
      {"blk.{L}.attn_k.bias", "encoder.layer.{L}.attention.self.key.bias", ZEN_HF_AS_IS},
      {"blk.{L}.attn_v.weight", "encoder.layer.{L}.attention.self.value.weight", ZEN_HF_AS_IS},
      {"blk.{L}.attn_v.bias", "encoder.layer.{L}.attention.self.value.bias", ZEN_HF_AS_IS},
      {"blk.{L}.attn_output.weight", "encoder.layer.{L}.attention.output.dense.weight",
       ZEN_HF_AS_IS},
      {"blk.{L}.attn_output.bias", "encoder.layer.{L}.attention.output.dense.bias", ZEN_HF_AS_IS},
      {"blk.{L}.attn_output_norm.weight", "encoder.layer.{L}.attention.output.LayerNorm.weight",
       ZEN_HF_AS_IS},
      {"blk.{L}.attn_output_norm.bias", "encoder.layer.{L}.attention.output.LayerNorm.bias",
       ZEN_HF_AS_IS},
      {"blk.{L}.ffn_up.weight", "encoder.layer.{L}.intermediate.dense.weight", ZEN_HF_AS_IS},
      {"blk.{L}.ffn_up.bias", "encoder.layer.{L}.intermediate.dense.bias", ZEN_HF_AS_IS},
      {"blk.{L}.ffn_down.weight", "encoder.layer.{L}.output.dense.weight", ZEN_HF_AS_IS},
      {"blk.{L}.ffn_down.bias", "encoder.layer.{L}.output.dense.bias", ZEN_HF_AS_IS},
      {"blk.{L}.layer_output_norm.weight", "encoder.layer.{L}.output.LayerNorm.weight",
       ZEN_HF_AS_IS},
      {"blk.{L}.layer_output_norm.bias", "encoder.layer.{L}.output.LayerNorm.bias", ZEN_HF_AS_IS},
      // BERT's pooler (read only by a cross-encoder's rank head).
      {"cls.weight", "pooler.dense.weight", ZEN_HF_AS_IS},
      {"cls.bias", "pooler.dense.bias", ZEN_HF_AS_IS},
  });
  static constexpr zen_hf_map kHf = zen::hf_map(kHfKeys, kHfTensors);

  explicit Bert(const zen::ModelInfo& m)
      : n_embd_(m.u32("{arch}.embedding_length")),
        n_ff_(m.u32("{arch}.feed_forward_length")),
        n_head_(m.u32("{arch}.attention.head_count")),
        n_layer_(m.u32("{arch}.block_count")),
        eps_(m.f32("{arch}.attention.layer_norm_epsilon", 1e-12f)),
        pooling_(zen::pooling_type(m, zen::Pooling::kMean)) {
    if (n_head_ == 0 || n_embd_ % n_head_ != 0)
      throw zen::Error(ZEN_ERR_INVALID_ARG, "embedding length " + std::to_string(n_embd_) +
                                                " is not a multiple of the head count " +
                                                std::to_string(n_head_));
    const int64_t d = n_embd_, ff = n_ff_;
    if (m.shape("token_embd.weight")[0] != d)
      throw zen::Error(ZEN_ERR_INVALID_ARG,
                       "token_embd.weight rows are not " + std::to_string(d) + " wide");
    m.expect("position_embd.weight", {d, m.u32("{arch}.context_length")});
    if (m.has_tensor("token_types.weight")) {
      n_types_ = m.shape("token_types.weight")[1];
      m.expect("token_types.weight", {d, n_types_});
    }
    expect_norm(m, "token_embd_norm");
    for (uint32_t il = 0; il < n_layer_; ++il) {
      for (const char* w : {"attn_q", "attn_k", "attn_v", "attn_output"})
        expect_linear(m, il, w, d, d);
      expect_norm(m, zen::layer_tensor(il, "attn_output_norm"));
      expect_norm(m, zen::layer_tensor(il, "layer_output_norm"));
      expect_linear(m, il, "ffn_up", d, ff);
      expect_linear(m, il, "ffn_down", ff, d);
    }
    if (pooling_ == zen::Pooling::kRank) {
      m.expect("cls.weight", {d, d});
      m.expect("cls.bias", {d});
      n_labels_ = m.shape("cls.output.weight")[1];
      m.expect("cls.output.weight", {d, n_labels_});
      m.expect("cls.output.bias", {n_labels_});
    }
  }

  void build(zen::Graph& g, const zen_batch& b) const {
    zen::EncoderInputs in(g, b);
    const int64_t t = b.n_tokens, hd = n_embd_ / n_head_;
    zen_t x = g.add(g.get_rows(g.weight("token_embd.weight"), in.tokens),
                    g.get_rows(g.weight("position_embd.weight"), in.positions));
    if (n_types_ > 0) x = g.add(x, g.get_rows(g.weight("token_types.weight"), in.token_types()));
    x = g.name(norm(g, x, "token_embd_norm"), "embd_norm");
    const zen_t mask = in.mask(/*causal=*/false);
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));

    for (uint32_t il = 0; il < n_layer_; ++il) {
      auto linear = [&](const char* w, zen_t v) {
        const std::string p = zen::layer_tensor(il, w);
        return g.add(g.matmul(g.weight(p + ".weight"), v), g.weight(p + ".bias"));
      };
      zen_t att =
          zen::self_attention(g, g.heads(linear("attn_q", x), hd), g.heads(linear("attn_k", x), hd),
                              g.heads(linear("attn_v", x), hd), mask, scale);
      att = g.name(linear("attn_output", g.reshape(att, {n_embd_, t})), "attn_out", il);
      x = g.name(norm(g, g.add(x, att), zen::layer_tensor(il, "attn_output_norm")), "attn_norm",
                 il);
      zen_t ff =
          g.name(linear("ffn_down", g.gelu(linear("ffn_up", x), /*erf=*/true)), "ffn_out", il);
      x = g.name(norm(g, g.add(x, ff), zen::layer_tensor(il, "layer_output_norm")), "l_out", il);
    }

    if (pooling_ != zen::Pooling::kRank) {
      g.output(in.pool(x, pooling_), "embeddings");
      return;
    }
    zen_t cls = g.get_rows(x, in.edge(/*last=*/false));
    cls = g.tanh(g.add(g.matmul(g.weight("cls.weight"), cls), g.weight("cls.bias")));
    g.output(g.add(g.matmul(g.weight("cls.output.weight"), cls), g.weight("cls.output.bias")),
             "embeddings");
  }

 private:
  static void expect_norm(const zen::ModelInfo& m, const std::string& p) {
    m.expect(p + ".weight", {m.u32("{arch}.embedding_length")});
    m.expect(p + ".bias", {m.u32("{arch}.embedding_length")});
  }
  static void expect_linear(const zen::ModelInfo& m, uint32_t il, const char* w, int64_t in,
                            int64_t out) {
    const std::string p = zen::layer_tensor(il, w);
    m.expect(p + ".weight", {in, out});
    m.expect(p + ".bias", {out});
  }
  zen_t norm(zen::Graph& g, zen_t x, const std::string& p) const {
    return g.layer_norm(x, g.weight(p + ".weight"), g.weight(p + ".bias"), eps_);
  }

  int64_t n_embd_, n_ff_;
  uint32_t n_head_, n_layer_;
  float eps_;
  zen::Pooling pooling_;
  int64_t n_types_ = 0, n_labels_ = 0;
};

}  // namespace

ZEN_EXPORT_ARCH(Bert, "bert", "0.1.0")
