#include "graph/builder.h"

#include <algorithm>
#include <span>

#include <zen/plugin.hpp>

namespace zen::graph {

TensorId Builder::placed(std::string_view name, bool state) {
  const std::string what = std::string(state ? "state '" : "weight '") + std::string(name) + "'";
  const uint32_t flag = state ? ZEN_TENSOR_STATE : ZEN_TENSOR_WEIGHT;
  TensorId known = graph_.find(name);
  if (known != kNoTensor) {
    if (!(graph_.tensor(known).flags & flag))
      throw Error(ZEN_ERR_INVALID_ARG, what + ": the name is taken by a tensor of another kind");
    return known;
  }
  if (!resolver_) throw Error(ZEN_ERR_NOT_FOUND, what + ": no model is bound to this builder");
  std::optional<WeightInfo> w = resolver_(name);
  if (!w || w->state != state)
    throw Error(ZEN_ERR_NOT_FOUND,
                what + (state ? " is not a state the runtime keeps" : " is not in the model"));
  int n = ZEN_MAX_DIMS;
  while (n > 1 && w->ne[n - 1] == 1) --n;
  std::span<const int64_t> ne(w->ne.data(), n);
  return state ? graph_.state(std::string(name), w->type, ne, w->where)
               : graph_.weight(std::string(name), w->type, ne, w->where);
}

TensorId Builder::op(zen_op op, std::span<const TensorId> srcs, std::span<const int32_t> params) {
  const TensorId y = graph_.op(op, srcs, params);
  if (op != ZEN_OP_MATMUL || !on_matmul_ || !(graph_.tensor(srcs[0]).flags & ZEN_TENSOR_WEIGHT))
    return y;
  return on_matmul_(*this, srcs[0], srcs[1], y);
}

namespace {

// Runs f on the builder, turning exceptions into `fallback` plus last_error.
template <class R, class F>
R call(zen_graph_builder* b, R fallback, F&& f) noexcept {
  if (!b) return fallback;
  Builder& builder = Builder::from(b);
  R result = fallback;
  zen_status st = guarded(builder.last_error, [&] { result = f(builder); });
  if (st == ZEN_OK) builder.last_error.clear();
  return result;
}

// A negative handle means an earlier call failed: say so instead of "bad handle".
void check_handle(Builder& b, zen_t t, const std::string& what) {
  if (t < 0)
    throw Error(ZEN_ERR_INVALID_ARG, what + " is an error handle (" + std::to_string(t) + ")" +
                                         (b.last_error.empty() ? "" : " from: " + b.last_error));
  b.graph().check_id(t, what);
}

zen_t api_input(zen_graph_builder* b, const char* name, uint32_t type, uint32_t n_dims,
                const int64_t* ne) {
  return call(b, zen_t{-1}, [&](Builder& x) {
    if (!name || (!ne && n_dims)) throw Error(ZEN_ERR_INVALID_ARG, "input: NULL name or shape");
    if (!known_type(type))
      throw Error(ZEN_ERR_INVALID_ARG,
                  "input '" + std::string(name) + "': unknown type " + std::to_string(type));
    return x.graph().input(name, static_cast<zen_type>(type), std::span(ne, n_dims));
  });
}

zen_t api_weight(zen_graph_builder* b, const char* name) {
  return call(b, zen_t{-1}, [&](Builder& x) {
    if (!name) throw Error(ZEN_ERR_INVALID_ARG, "weight: NULL name");
    return x.weight(name);
  });
}

zen_t api_op(zen_graph_builder* b, uint32_t op, const zen_t* srcs, uint32_t n_srcs,
             const int32_t* params, uint32_t n_params) {
  return call(b, zen_t{-1}, [&](Builder& x) {
    std::string label = op_label(op);
    if ((!srcs && n_srcs) || (!params && n_params))
      throw Error(ZEN_ERR_INVALID_ARG, label + ": NULL sources or params");
    if (n_srcs > ZEN_MAX_SRC) throw Error(ZEN_ERR_INVALID_ARG, label + ": at most 6 sources");
    for (uint32_t i = 0; i < n_srcs; ++i)
      check_handle(x, srcs[i], label + ": src" + std::to_string(i));
    return x.op(static_cast<zen_op>(op), std::span(srcs, n_srcs), std::span(params, n_params));
  });
}

zen_t api_view(zen_graph_builder* b, zen_t src, uint32_t n_dims, const int64_t* ne,
               const uint64_t* nb, uint64_t offset) {
  return call(b, zen_t{-1}, [&](Builder& x) {
    if (!ne && n_dims) throw Error(ZEN_ERR_INVALID_ARG, "view: NULL shape");
    check_handle(x, src, "view: src");
    return x.graph().view(src, std::span(ne, n_dims),
                          nb ? std::span(nb, n_dims) : std::span<const uint64_t>{}, offset);
  });
}

zen_status api_output(zen_graph_builder* b, zen_t t, const char* name) {
  zen_status st = ZEN_ERR_INVALID_ARG;
  call(b, 0, [&](Builder& x) {
    if (!name) throw Error(ZEN_ERR_INVALID_ARG, "output: NULL name");
    check_handle(x, t, "output");
    x.graph().output(t, name);
    st = ZEN_OK;
    return 0;
  });
  return b ? st : ZEN_ERR_INVALID_ARG;
}

int api_shape(zen_graph_builder* b, zen_t t, int64_t* ne, uint32_t* type) {
  return call(b, 0, [&](Builder& x) {
    check_handle(x, t, "shape");
    const Tensor& v = x.graph().tensor(t);
    if (ne) std::copy(v.ne.begin(), v.ne.end(), ne);
    if (type) *type = v.type;
    return 1;
  });
}

int api_strides(zen_graph_builder* b, zen_t t, uint64_t* nb) {
  return call(b, 0, [&](Builder& x) {
    check_handle(x, t, "strides");
    const Tensor& v = x.graph().tensor(t);
    if (nb) std::copy(v.nb.begin(), v.nb.end(), nb);
    return 1;
  });
}

zen_t api_state(zen_graph_builder* b, const char* name) {
  return call(b, zen_t{-1}, [&](Builder& x) {
    if (!name) throw Error(ZEN_ERR_INVALID_ARG, "state: NULL name");
    return x.state(name);
  });
}

zen_status api_name(zen_graph_builder* b, zen_t t, const char* name) {
  zen_status st = ZEN_ERR_INVALID_ARG;
  call(b, 0, [&](Builder& x) {
    if (!name) throw Error(ZEN_ERR_INVALID_ARG, "name: NULL name");
    check_handle(x, t, "name");
    x.graph().name(t, name);
    st = ZEN_OK;
    return 0;
  });
  return b ? st : ZEN_ERR_INVALID_ARG;
}

const char* api_last_error(zen_graph_builder* b) {
  return b ? Builder::from(b).last_error.c_str() : "no builder";
}

constexpr zen_graph_api kApi = {ZEN_HDR_INIT(zen_graph_api),
                                api_input,
                                api_weight,
                                api_op,
                                api_view,
                                api_output,
                                api_shape,
                                api_last_error,
                                api_strides,
                                api_state,
                                api_name};

}  // namespace

const zen_graph_api* graph_api() { return &kApi; }

}  // namespace zen::graph
