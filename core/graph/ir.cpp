#include "graph/ir.h"

#include <algorithm>

#include <zen/plugin.hpp>

#include "graph/infer.h"

namespace zen::graph {
namespace {

[[noreturn]] void fail(const std::string& msg) { throw Error(ZEN_ERR_INVALID_ARG, msg); }

// extent_bytes with overflow checks: view strides come from callers and may be absurd.
bool checked_extent(const Tensor& t, uint64_t& out) {
  uint64_t total = block_bytes(t.type), term = 0;
  for (int i = 0; i < ZEN_MAX_DIMS; ++i) {
    uint64_t steps = static_cast<uint64_t>(i == 0 ? t.ne[0] / block_size(t.type) : t.ne[i]) - 1;
    if (__builtin_mul_overflow(steps, t.nb[i], &term) ||
        __builtin_add_overflow(total, term, &total))
      return false;
  }
  out = total;
  return true;
}

}  // namespace

Dims to_dims(std::span<const int64_t> ne, const std::string& what) {
  if (ne.empty() || ne.size() > ZEN_MAX_DIMS)
    fail(what + ": needs 1 to 4 dims, got " + std::to_string(ne.size()));
  Dims d{1, 1, 1, 1};
  int64_t n = 1;
  for (size_t i = 0; i < ne.size(); ++i) {
    if (ne[i] < 1) fail(what + ": dim " + std::to_string(i) + " is " + std::to_string(ne[i]));
    if (__builtin_mul_overflow(n, ne[i], &n)) fail(what + ": shape is too large");
    d[i] = ne[i];
  }
  return d;
}

void Graph::check_id(TensorId id, const std::string& what) const {
  if (id < 0 || static_cast<size_t>(id) >= tensors_.size())
    fail(what + " is not a tensor of this graph (handle " + std::to_string(id) + ")");
}

const Tensor& Graph::tensor(TensorId id) const {
  check_id(id, "tensor");
  return tensors_[id];
}

TensorId Graph::storage(TensorId t) const {
  const Tensor& x = tensor(t);
  return x.aliases() ? x.view_src : t;
}

TensorId Graph::find(std::string_view name) const {
  auto it = names_.find(std::string(name));
  return it == names_.end() ? kNoTensor : it->second;
}

std::vector<TensorId> Graph::outputs() const {
  std::vector<TensorId> out;
  for (size_t i = 0; i < tensors_.size(); ++i)
    if (tensors_[i].flags & ZEN_TENSOR_OUTPUT) out.push_back(static_cast<TensorId>(i));
  return out;
}

void Graph::claim_name(const std::string& name, TensorId id, const char* what) {
  if (name.empty()) fail(std::string(what) + ": a name is required");
  auto [it, fresh] = names_.emplace(name, id);
  if (!fresh)
    fail(std::string(what) + ": name '" + name + "' is already used by tensor " +
         std::to_string(it->second));
}

TensorId Graph::add(Tensor t) {
  // Element counts are overflow-checked by to_dims/infer; the byte size must be too.
  uint64_t row = block_bytes(t.type) * static_cast<uint64_t>(t.ne[0] / block_size(t.type));
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(row, static_cast<uint64_t>(t.nelements() / t.ne[0]), &bytes))
    fail(describe(t) + " is too large");
  if (!t.name.empty()) claim_name(t.name, static_cast<TensorId>(tensors_.size()), "tensor");
  tensors_.push_back(std::move(t));
  return static_cast<TensorId>(tensors_.size() - 1);
}

TensorId Graph::leaf(std::string name, zen_type type, std::span<const int64_t> ne, uint32_t flags,
                     const char* what) {
  std::string label = std::string(what) + " '" + name + "'";
  if (name.empty()) fail(std::string(what) + ": a name is required");
  if (find(name) != kNoTensor)
    fail(label + ": name is already used by tensor " + std::to_string(find(name)));
  if (!known_type(type)) fail(label + ": unknown type " + std::to_string(type));
  Tensor t;
  t.type = type;
  t.ne = to_dims(ne, label);
  if (t.ne[0] % block_size(type) != 0)
    fail(label + ": ne0 " + std::to_string(t.ne[0]) + " is not a multiple of the " +
         type_name(type) + " block size " + std::to_string(block_size(type)));
  t.nb = contiguous_strides(type, t.ne);
  t.flags = flags;
  t.name = std::move(name);
  return add(std::move(t));
}

TensorId Graph::input(std::string name, zen_type type, std::span<const int64_t> ne) {
  return leaf(std::move(name), type, ne, ZEN_TENSOR_INPUT, "input");
}

TensorId Graph::weight(std::string name, zen_type type, std::span<const int64_t> ne,
                       Placement where) {
  TensorId id = leaf(std::move(name), type, ne, ZEN_TENSOR_WEIGHT, "weight");
  tensors_[id].placement = std::move(where);
  return id;
}

TensorId Graph::state(std::string name, zen_type type, std::span<const int64_t> ne,
                      Placement where) {
  TensorId id = leaf(std::move(name), type, ne, ZEN_TENSOR_STATE, "state");
  tensors_[id].placement = std::move(where);
  return id;
}

TensorId Graph::op(zen_op op, std::span<const TensorId> srcs, std::span<const int32_t> params) {
  std::string label = op_label(op);
  if (srcs.size() > ZEN_MAX_SRC) fail(label + ": at most 6 sources");
  std::array<const Tensor*, ZEN_MAX_SRC> ptrs{};
  for (size_t i = 0; i < srcs.size(); ++i) {
    check_id(srcs[i], label + ": src" + std::to_string(i));
    ptrs[i] = &tensors_[srcs[i]];
  }
  Inferred r = infer(op, std::span(ptrs.data(), srcs.size()), params);
  Tensor t;
  t.op = op;
  t.type = r.type;
  t.ne = r.ne;
  t.nb = contiguous_strides(r.type, r.ne);
  t.params = r.params;
  std::copy(srcs.begin(), srcs.end(), t.src.begin());
  if (op == ZEN_OP_SET_ROWS) {  // writes in place: the result is src0's memory
    const Tensor& dst = tensors_[srcs[0]];
    t.nb = dst.nb;
    t.view_src = storage(srcs[0]);
    t.view_offset = dst.aliases() ? dst.view_offset : 0;
  }
  return add(std::move(t));
}

TensorId Graph::view(TensorId src, std::span<const int64_t> ne, std::span<const uint64_t> nb,
                     uint64_t offset) {
  check_id(src, "view: src");
  const Tensor& s = tensors_[src];
  Tensor v;
  v.op = ZEN_OP_VIEW;
  v.type = s.type;
  v.ne = to_dims(ne, "view of " + describe(s));
  if (v.ne[0] % block_size(s.type) != 0)
    fail("view of " + describe(s) + ": ne0 " + std::to_string(v.ne[0]) + " splits a block of " +
         std::to_string(block_size(s.type)));
  v.nb = contiguous_strides(s.type, v.ne);
  if (!nb.empty()) {
    if (nb.size() != ne.size())
      fail("view of " + describe(s) + ": " + std::to_string(ne.size()) + " dims but " +
           std::to_string(nb.size()) + " strides");
    std::copy(nb.begin(), nb.end(), v.nb.begin());
    // Strides of the padded unit dims do not matter; keep them packed-looking.
    for (size_t i = nb.size(); i < ZEN_MAX_DIMS; ++i)
      v.nb[i] = v.nb[i - 1] * static_cast<uint64_t>(v.ne[i - 1]);
    if (block_size(s.type) > 1 && v.nb[0] != block_bytes(s.type))
      fail("view of " + describe(s) + ": blocks of a quantized row must stay packed");
  }
  v.src[0] = src;
  v.view_src = storage(src);
  const Tensor& root = tensors_[v.view_src];
  uint64_t base = s.aliases() ? s.view_offset : 0, extent = 0, end = 0;
  if (__builtin_add_overflow(base, offset, &v.view_offset) || !checked_extent(v, extent) ||
      __builtin_add_overflow(v.view_offset, extent, &end) || end > packed_bytes(root.type, root.ne))
    fail("view " + format_shape(v.ne) + " at byte " + std::to_string(offset) + " runs past " +
         describe(s) + " (" + std::to_string(packed_bytes(root.type, root.ne)) + " bytes)");
  return add(std::move(v));
}

TensorId Graph::reshape(TensorId src, std::span<const int64_t> ne) {
  check_id(src, "reshape: src");
  const Tensor& s = tensors_[src];
  Dims d = to_dims(ne, "reshape of " + describe(s));
  if (!is_contiguous(s)) fail("reshape: " + describe(s) + " is not contiguous (cpy it first)");
  if (d[0] * d[1] * d[2] * d[3] != s.nelements())
    fail("reshape: " + describe(s) + " has " + std::to_string(s.nelements()) + " elements, " +
         format_shape(d) + " has " + std::to_string(d[0] * d[1] * d[2] * d[3]));
  return view(src, ne, {}, 0);
}

TensorId Graph::permute(TensorId src, const std::array<int, ZEN_MAX_DIMS>& axes) {
  check_id(src, "permute: src");
  const Tensor& s = tensors_[src];
  std::array<bool, ZEN_MAX_DIMS> seen{};
  for (int a : axes) {
    if (a < 0 || a >= ZEN_MAX_DIMS || seen[a])
      fail("permute: axes of " + describe(s) + " must be a permutation of 0, 1, 2, 3");
    seen[a] = true;
  }
  if (block_size(s.type) > 1 && axes[0] != 0)
    fail("permute: " + describe(s) + " is block-quantized; dim 0 must stay first");
  Dims ne;
  std::array<uint64_t, ZEN_MAX_DIMS> nb;
  for (int i = 0; i < ZEN_MAX_DIMS; ++i) {
    ne[i] = s.ne[axes[i]];
    nb[i] = s.nb[axes[i]];
  }
  return view(src, ne, nb, 0);
}

TensorId Graph::slice(TensorId src, int dim, int64_t begin, int64_t end) {
  check_id(src, "slice: src");
  const Tensor& s = tensors_[src];
  if (dim < 0 || dim >= ZEN_MAX_DIMS || begin < 0 || end <= begin || end > s.ne[dim])
    fail("slice: [" + std::to_string(begin) + ", " + std::to_string(end) + ") of dim " +
         std::to_string(dim) + " is outside " + describe(s));
  int64_t bs = dim == 0 ? block_size(s.type) : 1;
  if (begin % bs != 0 || end % bs != 0)
    fail("slice: " + describe(s) + " rows can only be cut at block boundaries");
  Dims ne = s.ne;
  ne[dim] = end - begin;
  std::array<uint64_t, ZEN_MAX_DIMS> nb = s.nb;
  return view(src, ne, nb, static_cast<uint64_t>(begin / bs) * s.nb[dim]);
}

void Graph::name(TensorId t, std::string name) {
  check_id(t, "name");
  Tensor& x = tensors_[t];
  if (x.name == name) return;
  if (!x.name.empty())
    fail("name: tensor is already named '" + x.name + "', cannot also be '" + name + "'");
  claim_name(name, t, "name");
  x.name = std::move(name);
}

void Graph::output(TensorId t, std::string name) {
  check_id(t, "output");
  Tensor& x = tensors_[t];
  if (x.name.empty()) {
    claim_name(name, t, "output");
    x.name = std::move(name);
  } else if (x.name != name) {
    fail("output: tensor is already named '" + x.name + "', cannot also be '" + name + "'");
  }
  x.flags |= ZEN_TENSOR_OUTPUT;
}

}  // namespace zen::graph
