// The CPU device's kernel registry, keyed by (op, dst type, src0 type, src1 type).
//
// A kernel computes thread ith's share (of nth) of its node. Today the device calls every
// kernel with (0, 1); the thread pool of a later issue calls it from each worker with the
// same arguments, so kernels split their work with share() and never allocate.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>

#include <zen/graph.h>

namespace ZEN_CPU_NS {

namespace mm {
class PackedMatrix;  // matmul/packed_weights.h
}

class Barrier;  // all threads of one node's kernel call wait(); see thread_pool.h

struct KernelArgs {
  const zen_tensor* dst;
  char* d;  // dst's first element
  const zen_tensor* src[ZEN_MAX_SRC];
  const char* s[ZEN_MAX_SRC];  // each source's first element (nullptr when absent)
  // Scratch shared by the node's threads (at least the entry's work_size bytes, 64-aligned):
  // e.g. a matmul quantizes its activations here once, then every thread reads them.
  void* work = nullptr;
  uint64_t work_size = 0;
  Barrier* barrier = nullptr;  // nullptr when nth == 1
  // A counter the device zeroes before the node runs, for kernels that hand out work items
  // as threads become free (matmul's row tiles) instead of in fixed shares: on a shared
  // machine one thread's share can end late while the other spins. nullptr: fixed shares.
  std::atomic<int64_t>* cursor = nullptr;
  // The node after this one, computed in the same pass (zen/fusion.hpp; CpuDevice::compute
  // sets these only for kernels that take them: fuses_mul, fuses_add): its tensor and first
  // element, and the other source it reads (norm_mul: the weight row; matmul_add: the
  // residual). Each thread writes it for the outputs it wrote itself, so no barrier separates
  // the two nodes; values are the unfused kernels' (one float multiply or add per element).
  const zen_tensor* fused = nullptr;
  char* fd = nullptr;
  const zen_tensor* fused_src = nullptr;
  const char* fs = nullptr;
  // A matmul's weight (src[0]) in the packed GEMM's panels, kept by the device across calls
  // (matmul/packed_weights.h; set for kernels that read it: packs_weights). nullptr: the
  // kernel packs into its scratch.
  mm::PackedMatrix* packed = nullptr;
};

using KernelFn = void (*)(const KernelArgs& a, int ith, int nth);
// Scratch bytes a kernel needs for this node when run on nth threads (0: none).
using WorkSizeFn = uint64_t (*)(const zen_tensor& dst, const zen_tensor* const* src, int nth);

// Whether a kernel takes KernelArgs::fused: a norm followed by its weight's MUL
// (kernels_norm.cpp), a matmul followed by a residual ADD (kernels_matmul.cpp).
bool fuses_mul(KernelFn fn);
bool fuses_add(KernelFn fn);
// Whether a kernel reads KernelArgs::packed (the quantized matmul and matmul_id).
bool packs_weights(KernelFn fn);

// Waits until every thread of the current node reached this point (no-op on one thread).
void sync_threads(const KernelArgs& a);

inline constexpr uint32_t kAnyType = 0xffffffffu;  // matches every type and absent sources
inline constexpr uint32_t kNoSrc = 0xfffffffeu;    // the source is absent

struct KernelEntry {
  uint32_t op, dst, src0, src1;
  KernelFn fn;
  WorkSizeFn work_size = nullptr;
};

// Each family lists its kernels in a constant table (no static initializers: the plugin is
// loaded before anyone knows whether this CPU can run the variant's code).
std::span<const KernelEntry> copy_kernels();  // none, view, cpy, get_rows
std::span<const KernelEntry> matmul_kernels();
std::span<const KernelEntry> binary_kernels();  // add, mul
std::span<const KernelEntry> unary_kernels();   // scale, silu
std::span<const KernelEntry> norm_kernels();    // rms_norm, layer_norm, group_norm, softmax
std::span<const KernelEntry> rope_kernels();
std::span<const KernelEntry> activation_kernels();  // gelu, glu
std::span<const KernelEntry> conv_kernels();  // conv1d, conv2d, conv_transpose1d, upsample, concat
std::span<const KernelEntry> sort_kernels();  // argsort, top_k
std::span<const KernelEntry> attention_kernels();
std::span<const KernelEntry> dequant_kernels();  // get_rows / cpy from quantized types

// The kernel for graph tensor `node`, or nullptr when there is none.
const KernelEntry* find_kernel(const zen_graph& g, int32_t node);

}  // namespace ZEN_CPU_NS
