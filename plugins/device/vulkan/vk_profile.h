// GPU time per dispatch, from timestamp queries: ZEN_VULKAN_PROFILE=1 (bench on a real GPU, to
// see where a decode step's time goes without a vendor profiler). Each recorded graph gets a
// query pool; every dispatch is followed by a full compute barrier and a timestamp, so a
// dispatch's time is its own (kernels no longer overlap: the profiled total is an upper bound
// of the unprofiled one). Results accumulate per label (shader and workgroup count, which names
// the matrix shape of a matmul) and print to stderr when the device closes.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../common/kernel_times.h"
#include "vk_instance.h"

namespace zen_vk {

class Profiler {
 public:
  // nullptr unless ZEN_VULKAN_PROFILE is set to a non-empty value other than 0 and the queue
  // family writes timestamps.
  static std::unique_ptr<Profiler> create(VkDevice dev, const PhysicalDevice& pd);
  ~Profiler();

  // One recording's queries: begin() at its start, stamp() after each dispatch.
  struct Marks {
    VkQueryPool pool = VK_NULL_HANDLE;
    uint32_t capacity = 0;
    std::vector<uint32_t> labels;  // per stamp after the first
  };
  void begin(VkCommandBuffer cmd, Marks& m, uint32_t capacity);
  void stamp(VkCommandBuffer cmd, Marks& m, const std::string& label);
  // After the run of a recording holding `m` has finished: its times, added to the totals.
  void collect(const Marks& m);
  void release(Marks& m);

 private:
  Profiler(VkDevice dev, double ns_per_tick) : dev_(dev), ns_per_tick_(ns_per_tick) {}

  VkDevice dev_;
  double ns_per_tick_;
  zen_device_common::KernelTimes times_;
};

}  // namespace zen_vk
