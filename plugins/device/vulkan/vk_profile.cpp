#include "vk_profile.h"

#include <cstdio>

#include "vk_util.h"

namespace zen_vk {

std::unique_ptr<Profiler> Profiler::create(VkDevice dev, const PhysicalDevice& pd) {
  if (!zen_device_common::profile_requested("ZEN_VULKAN_PROFILE")) return nullptr;
  uint32_t n = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd.handle, &n, nullptr);
  std::vector<VkQueueFamilyProperties> families(n);
  vkGetPhysicalDeviceQueueFamilyProperties(pd.handle, &n, families.data());
  if (pd.compute_family >= n || families[pd.compute_family].timestampValidBits == 0) {
    std::fprintf(stderr, "vulkan profile: the compute queue writes no timestamps\n");
    return nullptr;
  }
  return std::unique_ptr<Profiler>(new Profiler(dev, pd.props.limits.timestampPeriod));
}

Profiler::~Profiler() { times_.report(stderr, "vulkan", "dispatches serialized"); }

void Profiler::begin(VkCommandBuffer cmd, Marks& m, uint32_t capacity) {
  release(m);
  VkQueryPoolCreateInfo qci{};
  qci.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
  qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
  qci.queryCount = capacity;
  check(vkCreateQueryPool(dev_, &qci, nullptr, &m.pool), "vkCreateQueryPool");
  m.capacity = capacity;
  vkCmdResetQueryPool(cmd, m.pool, 0, capacity);
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, m.pool, 0);
}

void Profiler::stamp(VkCommandBuffer cmd, Marks& m, const std::string& label) {
  if (!m.pool || m.labels.size() + 1 >= m.capacity) return;  // past capacity: not timed
  m.labels.push_back(times_.label_id(label));
  VkMemoryBarrier mb{};
  mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, m.pool,
                      static_cast<uint32_t>(m.labels.size()));
}

void Profiler::collect(const Marks& m) {
  if (!m.pool || m.labels.empty()) return;
  std::vector<uint64_t> t(m.labels.size() + 1);
  if (vkGetQueryPoolResults(dev_, m.pool, 0, static_cast<uint32_t>(t.size()),
                            t.size() * sizeof(uint64_t), t.data(), sizeof(uint64_t),
                            VK_QUERY_RESULT_64_BIT) != VK_SUCCESS)
    return;  // not ready (never waited): skipped
  for (size_t i = 0; i < m.labels.size(); ++i)
    times_.add(m.labels[i], static_cast<double>(t[i + 1] - t[i]) * ns_per_tick_);
  times_.end_run(static_cast<double>(t.back() - t.front()) * ns_per_tick_);
}

void Profiler::release(Marks& m) {
  if (m.pool) vkDestroyQueryPool(dev_, m.pool, nullptr);
  m = {};
}

}  // namespace zen_vk
