// The ops this device computes: what it accepts (supports_op) and how each node becomes one
// kernel launch. Kernel semantics follow the CPU device (plugins/device/cpu/kernels_*.cpp);
// anything not listed in ops.cpp is refused, so the scheduler puts it on another device.
#pragma once

#include <zen/device_counters.h>
#include <zen/graph.h>

#include <map>
#include <string>
#include <vector>

#include "cl_api.h"
#include "cl_profile.h"

namespace zen_opencl {

// A device buffer reused by every node that needs temporary storage (the quantized activations
// of a matmul), grown on demand. The queue is in order, so one node's use ends before the next
// node's kernels start; a replaced buffer is released and OpenCL frees it only once the kernels
// already enqueued on it are done.
class Scratch {
 public:
  // counters: the device's, for the buffers this makes and releases.
  Scratch(cl_context ctx, zen_device_counters* counters) : ctx_(ctx), counters_(counters) {}
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  // A buffer of at least `bytes` bytes; throws zen::Error naming clCreateBuffer on failure.
  cl_mem get(uint64_t bytes);

 private:
  cl_context ctx_;
  zen_device_counters* counters_;
  cl_mem mem_ = nullptr;
  uint64_t size_ = 0;
};

// A kernel of the program and the arguments last set on it (launch.h skips setting an
// argument again to the same bytes: NVIDIA's driver spends about a microsecond per
// clSetKernelArg, and a decode step sets some 12,000). `epoch` is the device's allocation
// count when `last` was filled: a new buffer may reuse a released one's handle, so any
// allocation since forgets them.
struct KernelSlot {
  cl_kernel kernel = nullptr;
  uint64_t epoch = 0;
  std::vector<std::vector<unsigned char>> last;
};

// Activation rows the scratch holds quantized.
struct QuantRows {
  bool valid = false;
  cl_mem mem = nullptr;  // the scratch buffer written
  int32_t fmt = 0;       // ACT_Q8 or ACT_Q8K
  zen_tensor rows{};     // the F32 activations quantized (buffer, offset, ne, nb)
};

// Which activations the scratch holds quantized (ops_launch.cpp, quantize_act), so the next
// matmul of the same rows in the same format skips quantizing them again: rows a kernel
// quantized as it wrote them (k_norm with its weight, k_glu_quant: `staged` until the nodes it
// computed are recorded), or that one matmul quantized for the next (q/k/v, gate/up when not
// in one launch). compute() forgets at its start (uploads may have rewritten them) and after
// every node that writes bytes the rows may share.
struct QuantMemo {
  QuantRows held;
  QuantRows staged;
  // A node wrote t: forget what t may overlap (its bytes where its type's size is known, else
  // its whole buffer).
  void wrote(const zen_tensor& t);
};

// What an enqueue needs from the device.
struct LaunchContext {
  cl_command_queue queue;
  std::map<std::string, KernelSlot>* kernels;
  cl_mem dummy;                   // for absent optional sources
  cl_mem errors;                  // one int: kernels that find a bad row id set it (kBadRowId)
  Scratch* scratch;               // the quantized-activation matmul's temporary rows
  zen_device_counters* counters;  // each launch adds a dispatch and an argument set
  bool matvec;  // the GPU path: decode-size quantized MATMULs take k_matvec_q8 (takes_matvec)
  LaunchProfile* profile = nullptr;  // ZEN_OPENCL_PROFILE: each launch's event goes here
  QuantMemo* memo = nullptr;         // what the scratch holds quantized
  // A quantized MATMUL with at least this many columns takes the tiled k_gemm_q8
  // (77_gemm_q8.cl) where its type has a case there; 0: never.
  int64_t gemm_min_columns = 0;
  // ATTENTION with at least this many queries takes k_attention_tiled (80_attention.cl) where
  // its head dimensions allow; 0: never.
  int64_t attention_min_queries = 0;
  // Whether runs of nodes may take one launch (zen/fusion.hpp patterns; ZEN_OPENCL_FUSE=0
  // turns it off, to compare the fused launches with the nodes one by one).
  bool fuse = true;
};

// ops_support.cpp
bool op_supported(const zen_graph& g, int32_t node);
// Block size of the formats kernels/10_quant.cl decodes, or 0 for any other type.
int64_t quant_block(uint32_t type);
// Source i of t, or nullptr when absent.
const zen_tensor* graph_src(const zen_graph& g, const zen_tensor& t, int i);

// ops_launch.cpp: enqueues the kernel of the node at position pos of g's node list, or one
// fused kernel for it and the next (zen/fusion.hpp: a norm and its weight's MUL, a decode
// matmul and its residual ADD); returns how many nodes that took (nothing is launched for
// NONE / VIEW). Throws zen::Error naming the failing call.
uint32_t enqueue_nodes(const LaunchContext& c, const zen_graph& g, uint32_t pos);

// ops_launch_image.cpp: CONV1D, CONV2D, CONV_TRANSPOSE1D, GROUP_NORM and UPSAMPLE (s: the
// node's sources).
void enqueue_image_op(const LaunchContext& c, const zen_tensor& t, const zen_tensor* const* s);

// What k_get_rows* / k_set_rows write into LaunchContext::errors for an id outside the rows.
inline constexpr int kBadRowId = 1;

// clCreateBuffer, counted in c (an allocation, its bytes held); nullptr with *err set on failure.
cl_mem counted_buffer(cl_context ctx, zen_device_counters& c, cl_mem_flags flags, uint64_t bytes,
                      void* host, cl_int* err);
// clReleaseMemObject, taking the buffer's size off c.allocated_bytes.
void release_counted(zen_device_counters& c, cl_mem m);

// A zen_buffer* of this plugin.
struct Buffer {
  cl_mem mem;
  uint64_t size;
};

}  // namespace zen_opencl
