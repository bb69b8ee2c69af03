// The graph IR's tensor: the fields of zen_tensor plus what the host needs and the plugin
// boundary must not see (std::string name, where a leaf's data lives). Also the small shape
// helpers every other part of core/graph uses.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include <zen/graph.h>

namespace zen::graph {

using TensorId = int32_t;
inline constexpr TensorId kNoTensor = -1;

// Where a leaf's data is before the scheduler runs: either plain host memory (an mmapped file
// nobody wrapped) or a range of some device's buffer. Inputs have neither: the scheduler
// allocates them.
struct Placement {
  void* host = nullptr;  // host address of the first byte, or
  std::string device;    // id of the device whose buffer holds it ("cpu", "vulkan:0")
  zen_buffer* buffer = nullptr;
  uint64_t offset = 0;

  bool on_host() const { return host != nullptr; }
  bool on_device() const { return buffer != nullptr; }
};

struct Tensor {
  zen_op op = ZEN_OP_NONE;
  zen_type type = ZEN_TYPE_F32;
  std::array<int64_t, ZEN_MAX_DIMS> ne{1, 1, 1, 1};
  std::array<uint64_t, ZEN_MAX_DIMS> nb{};
  std::array<TensorId, ZEN_MAX_SRC> src{kNoTensor, kNoTensor, kNoTensor,
                                        kNoTensor, kNoTensor, kNoTensor};
  // Complete after op creation: optional parameters are filled with their defaults, so a
  // device never has to guess how many the builder was given.
  std::array<int32_t, ZEN_MAX_OP_PARAMS> params{};
  uint32_t flags = 0;             // zen_tensor_flags
  TensorId view_src = kNoTensor;  // VIEW, SET_ROWS: the storage tensor (never itself aliasing)
  uint64_t view_offset = 0;       // VIEW, SET_ROWS: bytes into view_src
  std::string name;
  Placement placement;  // placed leaves only (weights, state)

  bool is_leaf() const { return op == ZEN_OP_NONE; }
  bool is_view() const { return op == ZEN_OP_VIEW; }
  // Shares view_src's memory: a view, or an op that writes in place (set_rows).
  bool aliases() const { return view_src != kNoTensor; }
  // Its data lives where its Placement says (model weights, runtime-owned state).
  bool placed() const { return (flags & (ZEN_TENSOR_WEIGHT | ZEN_TENSOR_STATE)) != 0; }
  bool computes() const { return !is_leaf() && !is_view(); }
  int n_srcs() const;
  int64_t nelements() const { return ne[0] * ne[1] * ne[2] * ne[3]; }
};

// A type id with known layout (not retired, not out of range).
bool known_type(uint32_t type);
// Bytes per block / elements per block of a type (plain types: element size / 1). Unknown
// types throw.
uint64_t block_bytes(zen_type type);
int64_t block_size(zen_type type);

// Packed strides for ne of `type` (nb[0] = bytes per block, as in GGUF).
std::array<uint64_t, ZEN_MAX_DIMS> contiguous_strides(zen_type type,
                                                      const std::array<int64_t, ZEN_MAX_DIMS>& ne);

// Bytes of a packed tensor of this type and shape.
uint64_t packed_bytes(zen_type type, const std::array<int64_t, ZEN_MAX_DIMS>& ne);

// One past the last byte the tensor's ne/nb touch, measured from its first byte.
uint64_t extent_bytes(const Tensor& t);

// Elements laid out packed in order (dimensions of size 1 may have any stride).
bool is_contiguous(const Tensor& t);

// "[64, 32]": trailing dimensions of size 1 are left out.
std::string format_shape(const std::array<int64_t, ZEN_MAX_DIMS>& ne);
// "F16 [64, 32]"
std::string describe(const Tensor& t);
const char* type_name(uint32_t type);
// "matmul", "get_rows", ... ("op 99" style text for unknown ids goes through op_label).
const char* op_name(uint32_t op);
std::string op_label(uint32_t op);

// Float parameters are stored bit-cast in the int32 slots.
int32_t param_bits(float f);
float param_float(int32_t bits);

}  // namespace zen::graph
