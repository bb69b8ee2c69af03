// The CPU device: buffers are 64-byte-aligned host memory (or wrapped host memory it does not
// own), compute runs each node's kernel synchronously on the calling thread for now.
#pragma once

#include <zen/device.hpp>

#include <vector>

namespace ZEN_CPU_NS {

class CpuDevice final : public zen::Device {
 public:
  static void fill_props(zen_device_props& out);

  bool supports_op(const zen_graph& g, int32_t node) override;
  zen_buffer* alloc(uint64_t bytes) override;
  void free(zen_buffer* buf) override;
  void* host_ptr(zen_buffer* buf) override;
  void upload(zen_buffer* buf, uint64_t off, const void* src, uint64_t bytes) override;
  void download(zen_buffer* buf, uint64_t off, void* dst, uint64_t bytes) override;
  void compute(const zen_graph& g) override;
  void synchronize() override {}
  zen_buffer* wrap_host(void* ptr, uint64_t bytes) override;

 private:
  std::vector<unsigned char> work_;  // kernels' shared scratch, grown to the largest need
};

}  // namespace ZEN_CPU_NS
