// A test-only architecture, "scripted": the next token depends only on the last one, through
// a table in the model file (next_token.weight [n_vocab, n_vocab], row t = the logits after
// token t, times scripted.logit_scale). tools/make_scripted_model.py writes a one-hot table so
// that greedy decoding follows a fixed script: with a tokenizer holding whole strings as single
// tokens, a test can make the model answer a weather question with a tool call and a tool
// result with a sentence, and so test the server's tool loop end to end. Built with the public
// SDK only, exactly like plugins/arch/*.cpp. It keeps no KV cache (no layers).
#include <zen/arch.hpp>

namespace {

class Scripted {
 public:
  static constexpr const char* kNames[] = {"scripted"};

  explicit Scripted(const zen::ModelInfo& m) : scale_(m.f32("scripted.logit_scale", 1.0f)) {
    const zen::ModelInfo::Dims d = m.shape("next_token.weight");
    if (d[0] != d[1] || d[2] != 1 || d[3] != 1)
      throw zen::Error(ZEN_ERR_INVALID_ARG,
                       "tensor 'next_token.weight' must be [n_vocab, n_vocab]");
  }

  uint32_t n_layers() const { return 0; }
  zen::CacheRows cache_rows(uint32_t) const { return {}; }

  void build(zen::Graph& g, const zen_batch& b) const {
    zen_t tokens = g.input("tokens", ZEN_TYPE_I32, {static_cast<int64_t>(b.n_tokens)});
    zen_t out_ids = g.input("out_ids", ZEN_TYPE_I32, {static_cast<int64_t>(b.n_outputs)});
    // Every token's row, then the rows whose logits are wanted (the batch's last tokens).
    zen_t rows = g.get_rows(g.weight("next_token.weight"), tokens);
    g.output(g.scale(g.get_rows(rows, out_ids), scale_), "logits");
  }

 private:
  float scale_;
};

}  // namespace

ZEN_EXPORT_ARCH(Scripted, "scripted", "0.1.0")
