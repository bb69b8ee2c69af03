#include "vk_profile.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "vk_util.h"

namespace zen_vk {

std::unique_ptr<Profiler> Profiler::create(VkDevice dev, const PhysicalDevice& pd) {
  const char* env = std::getenv("ZEN_VULKAN_PROFILE");
  if (!env || !*env || std::string_view(env) == "0") return nullptr;
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

Profiler::~Profiler() { report(); }

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
  auto [it, added] = ids_.try_emplace(label, static_cast<uint32_t>(names_.size()));
  if (added) {
    names_.push_back(label);
    totals_.emplace_back();
  }
  m.labels.push_back(it->second);
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
  for (size_t i = 0; i < m.labels.size(); ++i) {
    Total& tot = totals_[m.labels[i]];
    ++tot.calls;
    tot.ns += static_cast<double>(t[i + 1] - t[i]) * ns_per_tick_;
  }
  ++runs_;
  run_ns_ += static_cast<double>(t.back() - t.front()) * ns_per_tick_;
}

void Profiler::release(Marks& m) {
  if (m.pool) vkDestroyQueryPool(dev_, m.pool, nullptr);
  m = {};
}

void Profiler::report() const {
  if (runs_ == 0) return;
  double sum = 0;
  for (const Total& t : totals_) sum += t.ns;
  std::fprintf(stderr, "vulkan profile: %llu runs, %.1f us per run (dispatches serialized)\n",
               static_cast<unsigned long long>(runs_), run_ns_ / 1e3 / static_cast<double>(runs_));
  // Per shader, then the 30 costliest labels (shader[workgroups]).
  std::map<std::string, Total> shaders;
  for (size_t i = 0; i < names_.size(); ++i) {
    Total& s = shaders[names_[i].substr(0, names_[i].find('['))];
    s.calls += totals_[i].calls;
    s.ns += totals_[i].ns;
  }
  auto print = [&](const std::vector<std::pair<std::string, Total>>& rows, size_t limit) {
    std::fprintf(stderr, "  %-32s %10s %12s %10s %7s\n", "kernel", "calls/run", "us/run", "us/call",
                 "share");
    for (size_t i = 0; i < rows.size() && i < limit; ++i) {
      const Total& t = rows[i].second;
      std::fprintf(stderr, "  %-32s %10.1f %12.1f %10.2f %6.1f%%\n", rows[i].first.c_str(),
                   static_cast<double>(t.calls) / static_cast<double>(runs_),
                   t.ns / 1e3 / static_cast<double>(runs_),
                   t.ns / 1e3 / static_cast<double>(std::max<uint64_t>(t.calls, 1)),
                   sum > 0 ? 100.0 * t.ns / sum : 0.0);
    }
  };
  auto by_time = [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; };
  std::vector<std::pair<std::string, Total>> rows(shaders.begin(), shaders.end());
  std::sort(rows.begin(), rows.end(), by_time);
  print(rows, rows.size());
  rows.clear();
  for (size_t i = 0; i < names_.size(); ++i) rows.emplace_back(names_[i], totals_[i]);
  std::sort(rows.begin(), rows.end(), by_time);
  print(rows, 30);
}

}  // namespace zen_vk
