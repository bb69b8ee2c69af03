// Qwen3-MoE: Qwen3's attention (zen_arch::Decoder with q/k norms and NEOX rope) with a
// mixture-of-experts feed-forward: a router picks the top-k of n_expert SwiGLU experts per
// token, weighted by the router's softmax (renormalised over the chosen k, as Qwen3-MoE's
// norm_topk_prob does: that equals a softmax over the chosen logits), experts run through
// matmul_id.
#include "decoder.hpp"

namespace {

class Qwen3Moe : public zen_arch::Decoder {
 public:
  static constexpr const char* kNames[] = {"qwen3moe", "Qwen3MoeForCausalLM"};
  static constexpr auto kHfKeys = zen::concat(
      zen_arch::kDecoderHfKeys,
      std::to_array<zen_hf_key>({
          {"{arch}.expert_count", "num_experts|num_local_experts", ZEN_HP_U32, nullptr},
          {"{arch}.expert_used_count", "num_experts_per_tok", ZEN_HP_U32, nullptr},
          {"{arch}.expert_feed_forward_length", "moe_intermediate_size", ZEN_HP_U32, nullptr},
          {"{arch}.expert_weights_norm", "norm_topk_prob", ZEN_HP_BOOL, nullptr},
      }));
  static constexpr auto kHfTensors = zen::concat(
      zen_arch::decoder_hf_tensors(ZEN_HF_AS_IS),
      std::to_array<zen_hf_tensor>({
          {"blk.{L}.ffn_gate_inp.weight", "model.layers.{L}.mlp.gate.weight", ZEN_HF_AS_IS},
          {"blk.{L}.ffn_gate_exps.weight", "model.layers.{L}.mlp.experts.{E}.gate_proj.weight",
           ZEN_HF_AS_IS},
          {"blk.{L}.ffn_up_exps.weight", "model.layers.{L}.mlp.experts.{E}.up_proj.weight",
           ZEN_HF_AS_IS},
          {"blk.{L}.ffn_down_exps.weight", "model.layers.{L}.mlp.experts.{E}.down_proj.weight",
           ZEN_HF_AS_IS},
      }));
  static constexpr zen_hf_map kHf = zen::hf_map(kHfKeys, kHfTensors);

  explicit Qwen3Moe(const zen::ModelInfo& m)
      : Decoder(m, ZEN_ROPE_NEOX, 1e-6f, true, /*dense_ffn=*/false) {
    n_expert_ = m.u32("{arch}.expert_count");
    n_used_ = m.u32("{arch}.expert_used_count");
    n_ff_exp_ = m.u32("{arch}.expert_feed_forward_length");
    norm_top_k_ = m.flag("{arch}.expert_weights_norm", true);
    if (n_used_ == 0 || n_used_ > n_expert_)
      throw zen::Error(ZEN_ERR_INVALID_ARG, "expert_used_count " + std::to_string(n_used_) +
                                                " is outside 1..expert_count " +
                                                std::to_string(n_expert_));
    const int64_t d = attn_.n_embd, e = n_expert_, f = n_ff_exp_;
    for (uint32_t il = 0; il < attn_.n_layer; ++il) {
      auto t = [il](const char* s) { return zen::layer_tensor(il, s); };
      m.expect(t("ffn_gate_inp.weight"), {d, e});
      m.expect(t("ffn_gate_exps.weight"), {d, f, e});
      m.expect(t("ffn_up_exps.weight"), {d, f, e});
      m.expect(t("ffn_down_exps.weight"), {f, d, e});
    }
  }

 protected:
  zen_t ffn(zen::Graph& g, uint32_t il, zen_t h) const override {
    auto w = [&](const char* s) { return g.weight(zen::layer_tensor(il, s)); };
    const int64_t d = attn_.n_embd, t = g.shape(h)[1], k = n_used_, e = n_expert_;
    zen_t router = g.matmul(w("ffn_gate_inp.weight"), h);                 // [E, T]
    zen_t ids = g.op(ZEN_OP_TOP_K, {router}, {static_cast<int32_t>(k)});  // [k, T]
    zen_t weights;                                                        // [1, k, T]
    if (norm_top_k_) {
      zen_t chosen = g.get_rows(g.reshape(router, {1, e, t}), ids);
      weights = g.reshape(g.softmax(g.reshape(chosen, {k, t})), {1, k, t});
    } else {
      weights = g.get_rows(g.reshape(g.softmax(router), {1, e, t}), ids);
    }
    zen_t x = g.reshape(h, {d, 1, t});
    zen_t gate = g.op(ZEN_OP_MATMUL_ID, {w("ffn_gate_exps.weight"), x, ids});  // [F, k, T]
    zen_t up = g.op(ZEN_OP_MATMUL_ID, {w("ffn_up_exps.weight"), x, ids});
    zen_t act = g.op(ZEN_OP_GLU, {gate, up}, {0});
    zen_t down = g.op(ZEN_OP_MATMUL_ID, {w("ffn_down_exps.weight"), act, ids});  // [D, k, T]
    down = g.mul(down, weights);
    // Sum the k expert outputs of each token: strided views over the k axis.
    const uint64_t row = static_cast<uint64_t>(d) * sizeof(float);
    zen_t out = g.view(down, {d, t}, {sizeof(float), row * k}, 0);
    for (int64_t j = 1; j < k; ++j)
      out = g.add(out, g.view(down, {d, t}, {sizeof(float), row * k}, row * j));
    return out;
  }

 private:
  uint32_t n_expert_ = 0, n_used_ = 0, n_ff_exp_ = 0;
  bool norm_top_k_ = true;
};

}  // namespace

ZEN_EXPORT_ARCH(Qwen3Moe, "qwen3moe", "0.1.0")
