// A complete encoder architecture in one file, written only against the installed SDK: the
// BERT family as llama.cpp's converter writes it to GGUF (general.architecture "bert"), with
// the pooling the file names (mean by default, CLS or last token). It shows the shape of an
// encoder plugin: kKind = ZEN_MODEL_ENCODER, no KV cache, the runtime's encoder inputs
// (zen/arch.h) and one "embeddings" output; intermediate tensors carry names ("l_out-0") so
// they can be dumped and compared with the reference implementation's hidden states.
#include <zen/arch.hpp>

#include <string>
#include <vector>

namespace {

enum class Pooling : uint32_t { kMean = 1, kCls = 2, kLast = 3 };  // {arch}.pooling_type

class MeanPooledEncoder {
 public:
  static constexpr const char* kNames[] = {"bert", "BertModel"};
  static constexpr zen_model_kind kKind = ZEN_MODEL_ENCODER;

  explicit MeanPooledEncoder(const zen::ModelInfo& m)
      : n_embd_(m.u32("{arch}.embedding_length")),
        n_ff_(m.u32("{arch}.feed_forward_length")),
        n_head_(m.u32("{arch}.attention.head_count")),
        n_layer_(m.u32("{arch}.block_count")),
        n_ctx_(m.u32("{arch}.context_length")),
        eps_(m.f32("{arch}.attention.layer_norm_epsilon", 1e-12f)),
        pooling_(static_cast<Pooling>(m.u32("{arch}.pooling_type", 1))) {
    if (pooling_ != Pooling::kMean && pooling_ != Pooling::kCls && pooling_ != Pooling::kLast)
      throw zen::Error(ZEN_ERR_UNSUPPORTED, "pooling type " +
                                                std::to_string(static_cast<uint32_t>(pooling_)) +
                                                " (1 mean, 2 CLS, 3 last token are known)");
    if (n_head_ == 0 || n_embd_ % n_head_ != 0)
      throw zen::Error(ZEN_ERR_INVALID_ARG, "embedding length " + std::to_string(n_embd_) +
                                                " is not a multiple of the head count " +
                                                std::to_string(n_head_));
    const int64_t d = n_embd_, ff = n_ff_;
    if (m.shape("token_embd.weight")[0] != d)
      throw zen::Error(ZEN_ERR_INVALID_ARG,
                       "token_embd.weight rows are not " + std::to_string(d) + " wide");
    m.expect("position_embd.weight", {d, n_ctx_});
    has_types_ = m.optional("token_types.weight", {d, 2});
    m.expect("token_embd_norm.weight", {d});
    m.expect("token_embd_norm.bias", {d});
    for (uint32_t il = 0; il < n_layer_; ++il) {
      for (const char* w : {"attn_q", "attn_k", "attn_v", "attn_output"}) {
        m.expect(zen::layer_tensor(il, (std::string(w) + ".weight").c_str()), {d, d});
        m.expect(zen::layer_tensor(il, (std::string(w) + ".bias").c_str()), {d});
      }
      for (const char* n : {"attn_output_norm", "layer_output_norm"}) {
        m.expect(zen::layer_tensor(il, (std::string(n) + ".weight").c_str()), {d});
        m.expect(zen::layer_tensor(il, (std::string(n) + ".bias").c_str()), {d});
      }
      m.expect(zen::layer_tensor(il, "ffn_up.weight"), {d, ff});
      m.expect(zen::layer_tensor(il, "ffn_up.bias"), {ff});
      m.expect(zen::layer_tensor(il, "ffn_down.weight"), {ff, d});
      m.expect(zen::layer_tensor(il, "ffn_down.bias"), {d});
    }
  }

  void build(zen::Graph& g, const zen_batch& b) const {
    const int64_t t = b.n_tokens, s = b.n_seqs, hd = n_embd_ / n_head_, h = n_head_;
    zen_t x = g.add(
        g.get_rows(g.weight("token_embd.weight"), g.input("tokens", ZEN_TYPE_I32, {t})),
        g.get_rows(g.weight("position_embd.weight"), g.input("positions", ZEN_TYPE_I32, {t})));
    if (has_types_)
      x = g.add(
          x, g.get_rows(g.weight("token_types.weight"), g.input("token_types", ZEN_TYPE_I32, {t})));
    x = g.name(norm(g, x, "token_embd_norm"), "embd_norm");
    const zen_t mask = g.input("kq_mask", ZEN_TYPE_F32, {t, t});

    for (uint32_t il = 0; il < n_layer_; ++il) {
      auto linear = [&](const char* w, zen_t in) {
        return g.add(g.matmul(g.weight(layer(il, w, "weight")), in),
                     g.weight(layer(il, w, "bias")));
      };
      // [D * H, T] -> [D, T, H]: heads as the outer dimension, as attention reads them.
      auto split = [&](zen_t y) { return g.permute(g.heads(y, hd), {0, 2, 1, 3}); };
      zen_t att = g.attention(split(linear("attn_q", x)), split(linear("attn_k", x)),
                              split(linear("attn_v", x)), mask);  // [D, H, T]
      att = g.name(linear("attn_output", g.reshape(att, {hd * h, t})), "attn_out", il);
      x = g.name(norm(g, g.add(x, att), layer(il, "attn_output_norm", "").c_str()), "attn_norm",
                 il);
      zen_t ff = linear("ffn_down", g.gelu(linear("ffn_up", x), /*erf=*/true));
      x = g.name(
          norm(g, g.add(x, g.name(ff, "ffn_out", il)), layer(il, "layer_output_norm", "").c_str()),
          "l_out", il);
    }

    zen_t pooled;
    if (pooling_ == Pooling::kMean) {
      // [D, T] -> packed [T, D], times the runtime's [T, S] weights of 1 / length: [D, S].
      const zen_t xt = g.cpy(g.permute(x, {1, 0, 2, 3}), ZEN_TYPE_F32);
      pooled = g.matmul(xt, g.input("seq_mean", ZEN_TYPE_F32, {t, s}));
    } else {
      const char* rows = pooling_ == Pooling::kCls ? "seq_first" : "seq_last";
      pooled = g.get_rows(x, g.input(rows, ZEN_TYPE_I32, {s}));
    }
    g.output(pooled, "embeddings");
  }

 private:
  // "blk.3.attn_q" + "weight" -> "blk.3.attn_q.weight"; an empty part gives the prefix.
  static std::string layer(uint32_t il, const char* what, const char* part) {
    const std::string base = zen::layer_tensor(il, what);
    return *part ? base + "." + part : base;
  }
  // LayerNorm with the prefix's weight and bias.
  zen_t norm(zen::Graph& g, zen_t x, const char* prefix) const {
    const std::string p = prefix;
    return g.layer_norm(x, g.weight(p + ".weight"), g.weight(p + ".bias"), eps_);
  }

  uint32_t n_embd_, n_ff_, n_head_, n_layer_, n_ctx_;
  float eps_;
  Pooling pooling_;
  bool has_types_ = false;
};

}  // namespace

ZEN_EXPORT_ARCH(MeanPooledEncoder, "mean-pooled-encoder", "1.0.0")
