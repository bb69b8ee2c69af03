// One opened OpenCL device: a context, one in-order queue, the kernel program (built or loaded
// from the binary cache), and buffers made with clCreateBuffer. Buffers are not host-visible
// (host_ptr is NULL), so the scheduler uploads weights; transfers go through the same queue,
// so they are ordered with the kernels around them.
// A decode step is one submit and one host wait, as on Vulkan (docs/OPENCL-DEVICE.md):
//  - an upload of at most 1 MiB (a step's inputs) is copied and enqueued without blocking
//    (the copy lives until the next synchronize()); compute()'s clFlush submits it with the
//    kernels; larger ones (weights) block as before;
//  - a download right after a graph ran is learned for that graph: its next runs enqueue a
//    non-blocking read of the range into host memory behind the kernels (as they do for the
//    kernels' error flag), synchronize()'s clFinish waits for all of it, and the download is
//    a memcpy.
//
// Thread safety: one host thread at a time per device (the host's scheduler contract).
//
// The "zen_device_counters" extension (get_proc) counts, in OpenCL terms:
//   submits            batches handed to the queue: compute()'s clFlush of a graph's kernels
//                      (with the step's staged uploads and readbacks), and each blocking
//                      transfer (large uploads, unlearned downloads), which the driver submits
//                      on its own
//   host_waits         blocking calls: synchronize()'s clFinish and those transfers (each
//                      returns only after every command before it on the in-order queue)
//   dispatches         clEnqueueNDRangeKernel calls
//   descriptor_writes  kernel argument sets: one per dispatch (clSetKernelArg is called only
//                      for the arguments that differ from the kernel's last launch)
//   upload_bytes, download_bytes  through upload() / download()
//   allocations, allocated_bytes  clCreateBuffer calls (buffers, the matmul scratch, the
//                      dummy and error-flag buffers) and the bytes held now
//   barriers, recordings, replays stay 0: the in-order queue orders kernels without barrier
//                      commands, and no command buffers are recorded
#pragma once

#include <zen/device_counters.h>
#include <zen/device.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cl_api.h"
#include "ops.h"
#include "platforms.h"

namespace zen_opencl {

class OpenClDevice final : public zen::Device {
 public:
  explicit OpenClDevice(const DeviceEntry& e);
  ~OpenClDevice() override;

  bool supports_op(const zen_graph& g, int32_t node) override;
  zen_buffer* alloc(uint64_t bytes) override;
  void free(zen_buffer* buf) override;
  void* host_ptr(zen_buffer*) override { return nullptr; }
  void upload(zen_buffer* buf, uint64_t off, const void* src, uint64_t bytes) override;
  void download(zen_buffer* buf, uint64_t off, void* dst, uint64_t bytes) override;
  void compute(const zen_graph& g) override;
  void synchronize() override;
  const zen_device_counters* counters() const override { return &counters_; }

 private:
  void release();
  // One blocking transfer, counted as a submit and a host wait.
  void blocking(cl_int err, const char* call);

  static uint64_t graph_key(const zen_graph& g);
  // A range downloaded after a run of a graph, read back by its next runs.
  struct Readback {
    cl_mem mem;
    uint64_t offset, bytes;
    std::vector<unsigned char> host;
  };
  std::vector<std::vector<unsigned char>> staged_;  // upload copies the queue may still read
  uint64_t last_run_ = 0;                           // graph_key() of the last compute()
  bool after_run_ = false;                          // nothing uploaded since last_run_ was enqueued
  bool readbacks_ready_ = false;  // synchronize() has waited for last_run_'s readbacks
  std::map<uint64_t, std::vector<Readback>> readbacks_;  // by graph_key(), at most 8 graphs
  cl_int error_flag_ = 0;      // the kernels' error flag, read back behind them by compute()
  bool flag_pending_ = false;  // error_flag_ is being read for a compute() not yet waited for

  cl_device_id device_;
  cl_context ctx_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  cl_mem dummy_ = nullptr;   // bound to absent optional sources (no mask, no freq factors)
  cl_mem errors_ = nullptr;  // kernels' error flag (ops.h), checked by synchronize()
  std::map<std::string, KernelSlot> kernels_;
  std::unique_ptr<Scratch> scratch_;  // quantized activations of the matmuls (ops.h)
  QuantMemo memo_;                    // which activations scratch_ holds
  zen_device_counters counters_{};
  std::unique_ptr<LaunchProfile> profile_;  // null unless ZEN_OPENCL_PROFILE
  bool matvec_ = false;           // decode's quantized MATMULs take k_matvec_q8 (opencl_device.cpp)
  int64_t gemm_min_columns_ = 0;  // prefill's take k_gemm_q8 from this many columns (0: never)
  int64_t attention_min_queries_ = 0;  // k_attention_tiled from this many queries (0: never)
  bool fuse_ = true;                   // runs of nodes may take one launch (ZEN_OPENCL_FUSE)
};

}  // namespace zen_opencl
