// Building blocks every decoder-only architecture plugin shares: the runtime's batch inputs
// (see zen_batch in zen/arch.h) and attention over the runtime's KV cache. Header-only, built
// on zen::Graph, so a plugin's forward pass is only what is particular to its model.
#pragma once

#include <zen/arch.hpp>
#include <zen/graph.hpp>

#include <map>
#include <string>

namespace zen {

// The inputs the runtime fills for a batch, made once per graph.
class BatchInputs {
 public:
  BatchInputs(Graph& g, const zen_batch& b) : g_(g), b_(b) {
    const int64_t t = b.n_tokens;
    tokens = g.input("tokens", ZEN_TYPE_I32, {t});
    positions = g.input("positions", ZEN_TYPE_I32, {t});
    slots = g.input("kv_slots", ZEN_TYPE_I32, {t});
    out_ids = g.input("out_ids", ZEN_TYPE_I32, {static_cast<int64_t>(b.n_outputs)});
    if (ZEN_HAS_MEMBER(&b, zen_batch, gather_kv) && b.gather_kv)
      kv_rows = g.input("kv_rows", ZEN_TYPE_I32, {static_cast<int64_t>(b.n_kv)});
  }
  // The causal mask [n_kv, T], or with window > 0 the sliding-window one (made on first use).
  zen_t mask(uint32_t window = 0) {
    auto it = masks_.find(window);
    if (it != masks_.end()) return it->second;
    std::string name = window ? "kq_mask.swa" + std::to_string(window) : "kq_mask";
    zen_t m = g_.input(name.c_str(), ZEN_TYPE_F32,
                       {static_cast<int64_t>(b_.n_kv), static_cast<int64_t>(b_.n_tokens)});
    masks_.emplace(window, m);
    return m;
  }
  const zen_batch& batch() const { return b_; }

  // The input rows x [n_embd, T] (looked up, maybe scaled) with the rows the batch gives
  // (ABI 1.5: an image's or audio's embeddings at their positions) put in their tokens' place;
  // x itself when the batch gives none. Exact: rows are picked, not blended.
  zen_t with_given(zen_t x) {
    if (!ZEN_HAS_MEMBER(&b_, zen_batch, n_given) || b_.n_given == 0) return x;
    const int64_t n_embd = g_.shape(x)[0];
    zen_t given = g_.input("given_embd", ZEN_TYPE_F32, {n_embd, static_cast<int64_t>(b_.n_given)});
    zen_t pick = g_.input("embd_pick", ZEN_TYPE_I32, {static_cast<int64_t>(b_.n_tokens)});
    return g_.get_rows(g_.op(ZEN_OP_CONCAT, {x, given}, {1}), pick);
  }

  zen_t tokens, positions, slots, out_ids;
  // I32 [n_kv] cache cells attention reads, in this order, when the batch says gather_kv
  // (deterministic mode); negative when attention reads cells [0, n_kv) directly.
  zen_t kv_rows = -1;

 private:
  Graph& g_;
  const zen_batch& b_;
  std::map<uint32_t, zen_t> masks_;
};

// Writes this batch's K and V rows into layer `il`'s cache and attends over the cache (cells
// [0, n_kv), or the n_kv cells listed in kv_rows).
//   q [D, Hq, T], k [D, Hkv, T], v [Dv, Hkv, T] (roped, normed as the model wants)
//   -> [Dv * Hq, T]
inline zen_t cached_attention(Graph& g, BatchInputs& in, uint32_t il, zen_t q, zen_t k, zen_t v,
                              zen_t mask, float scale, float softcap = 0.0f) {
  const zen_batch& b = in.batch();
  const Graph::Dims qd = g.shape(q), kd = g.shape(k), vd = g.shape(v);
  const int64_t t = qd[2], d = kd[0], hkv = kd[1], dv = vd[0];
  const std::string idx = std::to_string(il);

  auto store = [&](const std::string& name, zen_t rows, int64_t width) {
    zen_t cache = g.state(name);
    zen_t written = g.set_rows(cache, g.reshape(rows, {width * hkv, t}), in.slots);
    // Gathered: a packed F32 copy of the listed cells, so attention's shape and summation order
    // depend only on the sequences in this batch, not on where their cells sit.
    if (in.kv_rows >= 0) written = g.get_rows(written, in.kv_rows);
    const uint64_t es = g.strides(written)[0];  // bytes per element
    // [width, n_kv, hkv]: cell j of head h sits at row j, column h * width.
    return g.view(written, {width, static_cast<int64_t>(b.n_kv), hkv},
                  {es, es * static_cast<uint64_t>(width * hkv), es * static_cast<uint64_t>(width)},
                  0);
  };
  zen_t keys = store("cache.k." + idx, k, d);
  zen_t values = store("cache.v." + idx, v, dv);
  zen_t qt = g.permute(q, {0, 2, 1, 3});                            // [D, T, Hq]
  zen_t out = g.attention(qt, keys, values, mask, scale, softcap);  // [Dv, Hq, T]
  return g.reshape(out, {dv * qd[1], t});
}

// ---- encoders (zen_model_kind ZEN_MODEL_ENCODER): whole sequences, no cache ----------------

// How an embedding model pools its last hidden states: {arch}.pooling_type, numbered as
// llama.cpp numbers it. Rank is a reranker's classifier head (the plugin's own).
enum class Pooling : uint32_t { kNone = 0, kMean = 1, kCls = 2, kLast = 3, kRank = 4 };

inline Pooling pooling_type(const ModelInfo& m, Pooling fallback) {
  const uint32_t p = m.u32("{arch}.pooling_type", static_cast<uint32_t>(fallback));
  if (p < 1 || p > 4)
    throw Error(ZEN_ERR_UNSUPPORTED,
                "pooling type " + std::to_string(p) +
                    (p == 0 ? " (none: one vector per token) is not served"
                            : " is unknown (1 mean, 2 CLS, 3 last token, 4 rank)"));
  return static_cast<Pooling>(p);
}

// The inputs the runtime fills for an encoder batch (zen/arch.h), made on first use.
class EncoderInputs {
 public:
  EncoderInputs(Graph& g, const zen_batch& b) : g_(g), t_(b.n_tokens), s_(b.n_seqs) {
    tokens = g.input("tokens", ZEN_TYPE_I32, {t_});
    positions = g.input("positions", ZEN_TYPE_I32, {t_});
  }
  zen_t token_types() { return g_.input("token_types", ZEN_TYPE_I32, {t_}); }
  // F32 [T, T]: 0 where query t may see key j of its own sequence, -inf elsewhere. Every key
  // of the sequence; with causal, keys at or before t; with window W > 0, keys fewer than W
  // positions away (before, or either side when not causal: EmbeddingGemma's sliding layers).
  zen_t mask(bool causal, uint32_t window = 0) {
    std::string name = causal ? "kq_mask.causal" : "kq_mask";
    if (window) name += ".swa" + std::to_string(window);
    auto it = masks_.find(name);
    if (it != masks_.end()) return it->second;
    return masks_[name] = g_.input(name.c_str(), ZEN_TYPE_F32, {t_, t_});
  }
  // Hidden states x [D, T] pooled to one column per sequence [D, S] (not rank).
  zen_t pool(zen_t x, Pooling p) {
    if (p == Pooling::kMean) {
      // [D, T] -> packed [T, D], times the runtime's [T, S] weights of 1 / length.
      const zen_t xt = g_.cpy(g_.permute(x, {1, 0, 2, 3}), ZEN_TYPE_F32);
      return g_.matmul(xt, g_.input("seq_mean", ZEN_TYPE_F32, {t_, s_}));
    }
    return g_.get_rows(x, edge(p == Pooling::kLast));
  }
  // I32 [S]: each sequence's first token (CLS) or last one.
  zen_t edge(bool last) { return g_.input(last ? "seq_last" : "seq_first", ZEN_TYPE_I32, {s_}); }

  zen_t tokens, positions;

 private:
  Graph& g_;
  int64_t t_, s_;
  std::map<std::string, zen_t> masks_;
};

// Attention within the batch, no cache: q [D, Hq, T], k [D, Hkv, T], v [Dv, Hkv, T] with a
// [T, T] mask -> [Dv * Hq, T].
inline zen_t self_attention(Graph& g, zen_t q, zen_t k, zen_t v, zen_t mask, float scale) {
  const Graph::Dims qd = g.shape(q), vd = g.shape(v);
  auto heads_outer = [&](zen_t x) { return g.permute(x, {0, 2, 1, 3}); };  // [D, T, H]
  zen_t out = g.attention(heads_outer(q), heads_outer(k), heads_outer(v), mask, scale);
  return g.reshape(out, {vd[0] * qd[1], qd[2]});
}

struct Rope {
  int n_dims = 0;  // leading elements of each head rotated
  zen_rope_mode mode = ZEN_ROPE_NORMAL;
  float base = 10000.0f;
  float scale = 1.0f;       // 1 / linear context scaling
  zen_t freq_factors = -1;  // optional F32 [n_dims / 2] per-pair divisors (llama3 scaling)
};

// x [D, H, T] rotated by the token positions.
inline zen_t rope(Graph& g, zen_t x, zen_t positions, const Rope& r) {
  std::initializer_list<int32_t> params = {r.n_dims, r.mode, 0, param_f32(r.base),
                                           param_f32(r.scale)};
  if (r.freq_factors >= 0) return g.op(ZEN_OP_ROPE, {x, positions, r.freq_factors}, params);
  return g.op(ZEN_OP_ROPE, {x, positions}, params);
}

// The gated feed-forward of Llama-family models: down(act(gate(x)) * up(x)).
// variant: 0 = SwiGLU, 1 = GeGLU with tanh GELU (zen_op GLU params).
inline zen_t gated_ffn(Graph& g, zen_t x, zen_t gate, zen_t up, zen_t down, int variant = 0) {
  return g.matmul(down, g.op(ZEN_OP_GLU, {g.matmul(gate, x), g.matmul(up, x)}, {variant}));
}

}  // namespace zen
