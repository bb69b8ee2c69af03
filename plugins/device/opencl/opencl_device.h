// One opened OpenCL device: a context, one in-order queue, the kernel program (built or loaded
// from the binary cache), and buffers made with clCreateBuffer. Buffers are not host-visible
// (host_ptr is NULL), so the scheduler uploads weights; upload/download are blocking
// clEnqueueWrite/ReadBuffer calls on the same queue, so they are ordered after the kernels
// compute() enqueued before them.
//
// Thread safety: one host thread at a time per device (the host's scheduler contract).
#pragma once

#include <zen/device.hpp>

#include <map>
#include <memory>
#include <string>

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

 private:
  void release();

  cl_device_id device_;
  cl_context ctx_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  cl_mem dummy_ = nullptr;   // bound to absent optional sources (no mask, no freq factors)
  cl_mem errors_ = nullptr;  // kernels' error flag (ops.h), checked by synchronize()
  std::map<std::string, cl_kernel> kernels_;
  std::unique_ptr<Scratch> scratch_;  // quantized activations of the matmuls (ops.h)
};

}  // namespace zen_opencl
