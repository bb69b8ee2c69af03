#include "graph/tensor.h"

#include <bit>
#include <string>

#include <zen/plugin.hpp>

#include "types/type_traits.h"

namespace zen::graph {
namespace {

const TypeTraits& traits(zen_type type) {
  const TypeTraits* t = type_traits(type);
  if (!t) throw Error(ZEN_ERR_INVALID_ARG, "unknown tensor type " + std::to_string(type));
  return *t;
}

constexpr const char* kOpNames[] = {
    "none",     "get_rows",   "matmul",     "matmul_id", "add",     "mul",       "scale",
    "rms_norm", "layer_norm", "group_norm", "rope",      "softmax", "attention", "silu",
    "gelu",     "glu",        "argsort",    "top_k",     "conv1d",  "conv2d",    "conv_transpose1d",
    "concat",   "cpy",        "view",       "upsample",  "custom",  "set_rows",  "tanh"};
static_assert(std::size(kOpNames) == ZEN_OP_COUNT, "a name for every op in graph.h");

}  // namespace

int Tensor::n_srcs() const {
  int n = 0;
  for (TensorId s : src)
    if (s != kNoTensor) ++n;
  return n;
}

bool known_type(uint32_t type) { return type_traits(type) != nullptr; }
uint64_t block_bytes(zen_type type) { return traits(type).block_bytes; }
int64_t block_size(zen_type type) { return traits(type).block_size; }

std::array<uint64_t, ZEN_MAX_DIMS> contiguous_strides(zen_type type,
                                                      const std::array<int64_t, ZEN_MAX_DIMS>& ne) {
  const TypeTraits& t = traits(type);
  std::array<uint64_t, ZEN_MAX_DIMS> nb{};
  nb[0] = t.block_bytes;
  nb[1] = nb[0] * static_cast<uint64_t>(ne[0] / t.block_size);
  for (int i = 2; i < ZEN_MAX_DIMS; ++i) nb[i] = nb[i - 1] * static_cast<uint64_t>(ne[i - 1]);
  return nb;
}

uint64_t packed_bytes(zen_type type, const std::array<int64_t, ZEN_MAX_DIMS>& ne) {
  auto nb = contiguous_strides(type, ne);
  return nb[ZEN_MAX_DIMS - 1] * static_cast<uint64_t>(ne[ZEN_MAX_DIMS - 1]);
}

uint64_t extent_bytes(const Tensor& t) {
  const TypeTraits& tr = traits(t.type);
  uint64_t last = tr.block_bytes;  // the final block itself
  last += static_cast<uint64_t>(t.ne[0] / tr.block_size - 1) * t.nb[0];
  for (int i = 1; i < ZEN_MAX_DIMS; ++i) last += static_cast<uint64_t>(t.ne[i] - 1) * t.nb[i];
  return last;
}

bool is_contiguous(const Tensor& t) {
  const TypeTraits& tr = traits(t.type);
  uint64_t expected = tr.block_bytes;
  for (int i = 0; i < ZEN_MAX_DIMS; ++i) {
    if (t.ne[i] != 1 && t.nb[i] != expected) return false;
    expected *= static_cast<uint64_t>(i == 0 ? t.ne[0] / tr.block_size : t.ne[i]);
  }
  return true;
}

std::string format_shape(const std::array<int64_t, ZEN_MAX_DIMS>& ne) {
  int n = ZEN_MAX_DIMS;
  while (n > 1 && ne[n - 1] == 1) --n;
  std::string s = "[";
  for (int i = 0; i < n; ++i) {
    if (i) s += ", ";
    s += std::to_string(ne[i]);
  }
  return s + "]";
}

std::string describe(const Tensor& t) {
  return std::string(type_name(t.type)) + " " + format_shape(t.ne);
}

const char* type_name(uint32_t type) {
  const TypeTraits* t = type_traits(type);
  return t ? t->name.data() : "unknown-type";
}

const char* op_name(uint32_t op) { return op < ZEN_OP_COUNT ? kOpNames[op] : "unknown-op"; }

std::string op_label(uint32_t op) {
  return op < ZEN_OP_COUNT ? std::string(kOpNames[op]) : "op " + std::to_string(op);
}

int32_t param_bits(float f) { return std::bit_cast<int32_t>(f); }
float param_float(int32_t bits) { return std::bit_cast<float>(bits); }

}  // namespace zen::graph
