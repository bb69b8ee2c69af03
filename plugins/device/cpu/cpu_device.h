// The CPU device: buffers are 64-byte-aligned host memory (or wrapped host memory it does not
// own); compute runs a graph on the device's persistent thread pool (thread_pool.h), created
// when the device opens with `cpu.threads` threads (0 or unset: one per physical core) pinned
// per `cpu.pinning` ("cores", the default, or "none").
//
// Thread safety: compute() may be called from one host thread at a time (the pool has one
// job slot); buffer calls touch no shared state besides the buffers themselves.
#pragma once

#include <zen/device.hpp>

#include <memory>
#include <vector>

#include "kernels.h"
#include "matmul/packed_weights.h"
#include "thread_pool.h"

namespace ZEN_CPU_NS {

class CpuDevice final : public zen::Device {
 public:
  CpuDevice();
  static void fill_props(zen_device_props& out);
  // Threads the device uses: cpu.threads from the host config, else one per physical core.
  static unsigned configured_threads();

  bool supports_op(const zen_graph& g, int32_t node) override;
  zen_buffer* alloc(uint64_t bytes) override;
  void free(zen_buffer* buf) override;
  void* host_ptr(zen_buffer* buf) override;
  void upload(zen_buffer* buf, uint64_t off, const void* src, uint64_t bytes) override;
  void download(zen_buffer* buf, uint64_t off, void* dst, uint64_t bytes) override;
  void compute(const zen_graph& g) override;
  void synchronize() override {}
  zen_buffer* wrap_host(void* ptr, uint64_t bytes) override;

  int threads() const { return pool_->size(); }

 private:
  struct Step {
    KernelFn fn;
    KernelArgs args;
  };
  static void run_steps(void* self, int ith);
  void fuse_next(const zen_graph& g, uint32_t& n, const KernelEntry& k, KernelArgs& args) const;

  std::unique_ptr<ThreadPool> pool_;
  std::vector<Step> steps_;                    // the current graph's nodes, prepared by compute()
  std::vector<std::atomic<int64_t>> cursors_;  // one per step (KernelArgs::cursor)
  std::vector<unsigned char> work_;            // kernels' shared scratch, grown to the largest need
  // Quantized weights in the packed GEMM's panels (cpu.repack, default true; false: each
  // matmul packs into its scratch, as before).
  bool repack_ = true;
  mm::PackedWeights packed_;
};

}  // namespace ZEN_CPU_NS
