// Header-only C++ wrapper over the host's graph builder table (zen_graph_api), for
// architecture plugins: every call checks the returned handle and throws zen::Error carrying
// the host's one-line last_error, so a forward pass reads like the paper and a wrong shape
// stops at the line that made it.
//
//   zen::Graph g(zen::Host::service<zen_graph_api>(ZEN_GRAPH_API_NAME), builder);
//   zen_t x = g.get_rows(g.weight("token_embd.weight"), g.input("tokens", ZEN_TYPE_I32, {n}));
//   x = g.rms_norm(x, 1e-6f);
//   g.output(g.matmul(g.weight("output.weight"), x), "logits");
#pragma once

#include <zen/graph.h>
#include <zen/plugin.hpp>

#include <array>
#include <bit>
#include <cmath>
#include <initializer_list>
#include <string>

namespace zen {

// Float op parameters travel bit-cast in int32 slots.
inline int32_t param_f32(float f) { return std::bit_cast<int32_t>(f); }

class Graph {
 public:
  using Dims = std::array<int64_t, ZEN_MAX_DIMS>;
  using Strides = std::array<uint64_t, ZEN_MAX_DIMS>;

  Graph(const zen_graph_api* api, zen_graph_builder* b) : api_(api), b_(b) {
    if (!api_ || !b_) throw Error(ZEN_ERR_INVALID_ARG, "graph: no builder table or builder");
    if (api_->h.abi_major != ZEN_ABI_MAJOR)
      throw Error(ZEN_ERR_ABI, "graph: builder table of another ABI major");
  }

  // ---- leaves -------------------------------------------------------------------------------
  zen_t input(const char* name, zen_type type, std::initializer_list<int64_t> ne) {
    return check(api_->input(b_, name, type, static_cast<uint32_t>(ne.size()), ne.begin()));
  }
  zen_t weight(const char* name) { return check(api_->weight(b_, name)); }
  zen_t weight(const std::string& name) { return weight(name.c_str()); }
  // Runtime-owned persistent state (KV cache rows), written with set_rows.
  zen_t state(const std::string& name) {
    if (!ZEN_HAS_MEMBER(api_, zen_graph_api, state) || !api_->state)
      throw Error(ZEN_ERR_UNSUPPORTED, "graph: the host's builder has no persistent state");
    return check(api_->state(b_, name.c_str()));
  }

  // ---- ops (shape rules: core/graph/infer.h) ------------------------------------------------
  zen_t op(zen_op op, std::initializer_list<zen_t> srcs,
           std::initializer_list<int32_t> params = {}) {
    return check(api_->op(b_, op, srcs.begin(), static_cast<uint32_t>(srcs.size()), params.begin(),
                          static_cast<uint32_t>(params.size())));
  }
  zen_t get_rows(zen_t table, zen_t ids) { return op(ZEN_OP_GET_ROWS, {table, ids}); }
  // Writes rows [K, N] into dst at ids [N]; returns dst as written (view this, not dst).
  zen_t set_rows(zen_t dst, zen_t rows, zen_t ids) { return op(ZEN_OP_SET_ROWS, {dst, rows, ids}); }
  // a [K, M] (weight) x b [K, N, ...] -> [M, N, ...]
  zen_t matmul(zen_t a, zen_t b) { return op(ZEN_OP_MATMUL, {a, b}); }
  zen_t add(zen_t a, zen_t b) { return op(ZEN_OP_ADD, {a, b}); }
  zen_t mul(zen_t a, zen_t b) { return op(ZEN_OP_MUL, {a, b}); }
  zen_t scale(zen_t x, float s, float bias = 0.0f) {
    return op(ZEN_OP_SCALE, {x}, {param_f32(s), param_f32(bias)});
  }
  zen_t rms_norm(zen_t x, float eps) { return op(ZEN_OP_RMS_NORM, {x}, {param_f32(eps)}); }
  // rms_norm(x) * weight, the usual pre-norm.
  zen_t rms_norm(zen_t x, zen_t weight, float eps) { return mul(rms_norm(x, eps), weight); }
  zen_t silu(zen_t x) { return op(ZEN_OP_SILU, {x}); }
  zen_t tanh(zen_t x) { return op(ZEN_OP_TANH, {x}); }
  zen_t softmax(zen_t x, float scale = 1.0f) { return op(ZEN_OP_SOFTMAX, {x}, {param_f32(scale)}); }
  zen_t softmax(zen_t x, zen_t mask, float scale) {
    return op(ZEN_OP_SOFTMAX, {x, mask}, {param_f32(scale)});
  }
  // x [D, H, T], pos I32 [T]; rotates the first n_dims of each head.
  zen_t rope(zen_t x, zen_t pos, int n_dims, zen_rope_mode mode, float freq_base,
             float freq_scale = 1.0f) {
    return op(ZEN_OP_ROPE, {x, pos},
              {n_dims, mode, 0, param_f32(freq_base), param_f32(freq_scale)});
  }
  // q [D, T, Hq], k/v [D, L, Hkv] -> [Dv, Hq, T]; scale defaults to 1 / sqrt(D).
  zen_t attention(zen_t q, zen_t k, zen_t v, float scale = NAN, float softcap = 0.0f) {
    return attention_impl({q, k, v}, scale, softcap);
  }
  zen_t attention(zen_t q, zen_t k, zen_t v, zen_t mask, float scale = NAN, float softcap = 0.0f) {
    return attention_impl({q, k, v, mask}, scale, softcap);
  }
  zen_t layer_norm(zen_t x, float eps) { return op(ZEN_OP_LAYER_NORM, {x}, {param_f32(eps)}); }
  // layer_norm(x) * weight + bias.
  zen_t layer_norm(zen_t x, zen_t weight, zen_t bias, float eps) {
    return add(mul(layer_norm(x, eps), weight), bias);
  }
  // 0 = tanh approximation, 1 = erf (BERT's exact GELU).
  zen_t gelu(zen_t x, bool erf = false) { return op(ZEN_OP_GELU, {x}, {erf ? 1 : 0}); }
  // A packed copy, converted to `type`.
  zen_t cpy(zen_t x, zen_type type) { return op(ZEN_OP_CPY, {x}, {static_cast<int32_t>(type)}); }

  // ---- views (no copy) ----------------------------------------------------------------------
  zen_t view(zen_t x, std::initializer_list<int64_t> ne, std::initializer_list<uint64_t> nb,
             uint64_t offset) {
    if (nb.size() != 0 && nb.size() != ne.size())
      throw Error(ZEN_ERR_INVALID_ARG, "view: as many strides as dims, or none");
    return check(api_->view(b_, x, static_cast<uint32_t>(ne.size()), ne.begin(),
                            nb.size() ? nb.begin() : nullptr, offset));
  }
  // Same elements in a new shape; x must be contiguous.
  zen_t reshape(zen_t x, std::initializer_list<int64_t> ne) {
    return check(api_->view(b_, x, static_cast<uint32_t>(ne.size()), ne.begin(), nullptr, 0));
  }
  // Result dim i is x's dim axes[i] (numpy's transpose).
  zen_t permute(zen_t x, std::array<int, ZEN_MAX_DIMS> axes) {
    const Dims ne = shape(x);
    const Strides nb = strides(x);
    Dims pne{};
    Strides pnb{};
    std::array<bool, ZEN_MAX_DIMS> seen{};
    for (int i = 0; i < ZEN_MAX_DIMS; ++i) {
      if (axes[i] < 0 || axes[i] >= ZEN_MAX_DIMS || seen[axes[i]])
        throw Error(ZEN_ERR_INVALID_ARG, "permute: axes must be a permutation of 0, 1, 2, 3");
      seen[axes[i]] = true;
      pne[i] = ne[axes[i]];
      pnb[i] = nb[axes[i]];
    }
    return check(api_->view(b_, x, ZEN_MAX_DIMS, pne.data(), pnb.data(), 0));
  }
  // [D * H, T] -> [D, H, T]: split the rows of x into heads of `head_dim`.
  zen_t heads(zen_t x, int64_t head_dim) {
    Dims ne = shape(x);
    if (head_dim <= 0 || ne[0] % head_dim != 0)
      throw Error(ZEN_ERR_INVALID_ARG, "heads: " + std::to_string(ne[0]) +
                                           " is not a multiple of head_dim " +
                                           std::to_string(head_dim));
    return reshape(x, {head_dim, ne[0] / head_dim, ne[1], ne[2] * ne[3]});
  }

  void output(zen_t t, const char* name) {
    if (api_->output(b_, t, name) != ZEN_OK) fail();
  }
  // Names t "<what>-<layer>" (or "<what>" for layer < 0) for dumps; returns t. A host without
  // names (before ABI 1.4) ignores it: names are diagnostics, never needed to compute.
  zen_t name(zen_t t, const char* what, int layer = -1) {
    if (!ZEN_HAS_MEMBER(api_, zen_graph_api, name) || !api_->name) return t;
    const std::string n = layer < 0 ? std::string(what) : what + ("-" + std::to_string(layer));
    if (api_->name(b_, t, n.c_str()) != ZEN_OK) fail();
    return t;
  }

  // ---- queries ------------------------------------------------------------------------------
  Dims shape(zen_t t, zen_type* type = nullptr) {
    Dims ne{};
    uint32_t ty = 0;
    if (!api_->shape(b_, t, ne.data(), &ty)) fail();
    if (type) *type = static_cast<zen_type>(ty);
    return ne;
  }
  Strides strides(zen_t t) {
    if (!ZEN_HAS_MEMBER(api_, zen_graph_api, strides) || !api_->strides)
      throw Error(ZEN_ERR_UNSUPPORTED, "graph: the host's builder cannot report strides");
    Strides nb{};
    if (!api_->strides(b_, t, nb.data())) fail();
    return nb;
  }

  const zen_graph_api* api() const { return api_; }
  zen_graph_builder* builder() const { return b_; }

 private:
  [[noreturn]] void fail() const {
    const char* why = api_->last_error(b_);
    throw Error(ZEN_ERR_INVALID_ARG, why && *why ? why : "graph builder call failed");
  }
  zen_t check(zen_t t) const {
    if (t < 0) fail();
    return t;
  }
  zen_t attention_impl(std::initializer_list<zen_t> srcs, float scale, float softcap) {
    // NaN = let the host default the scale from q's head dim.
    if (std::isnan(scale)) scale = 1.0f / std::sqrt(static_cast<float>(shape(*srcs.begin())[0]));
    return op(ZEN_OP_ATTENTION, srcs, {param_f32(scale), param_f32(softcap)});
  }

  const zen_graph_api* api_;
  zen_graph_builder* b_;
};

}  // namespace zen
