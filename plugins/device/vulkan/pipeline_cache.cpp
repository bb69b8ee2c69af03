#include "pipeline_cache.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include <unistd.h>

namespace zen_vk {

std::string pipeline_cache_path(const VkPhysicalDeviceProperties& props) {
  std::filesystem::path dir;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    dir = x;
  else if (const char* h = std::getenv("HOME"); h && *h)
    dir = std::filesystem::path(h) / ".cache";
  else
    return "";
  std::string uuid;
  char hex[3];
  for (uint8_t b : props.pipelineCacheUUID) {
    std::snprintf(hex, sizeof hex, "%02x", b);
    uuid += hex;
  }
  return (dir / "zen-engine" / "vulkan" / (uuid + ".bin")).string();
}

VkPipelineCache load_pipeline_cache(VkDevice dev, const VkPhysicalDeviceProperties& props) {
  std::vector<char> data;
  const std::string path = pipeline_cache_path(props);
  if (!path.empty()) {
    std::ifstream in(path, std::ios::binary);
    if (in) data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  VkPipelineCacheCreateInfo ci{};
  ci.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
  ci.initialDataSize = data.size();
  ci.pInitialData = data.empty() ? nullptr : data.data();
  VkPipelineCache cache = VK_NULL_HANDLE;
  if (vkCreatePipelineCache(dev, &ci, nullptr, &cache) == VK_SUCCESS) return cache;
  // A corrupt file: start empty rather than fail the device.
  ci.initialDataSize = 0;
  ci.pInitialData = nullptr;
  if (vkCreatePipelineCache(dev, &ci, nullptr, &cache) == VK_SUCCESS) return cache;
  return VK_NULL_HANDLE;  // pipelines are then created without a cache
}

void save_pipeline_cache(VkDevice dev, VkPipelineCache cache,
                         const VkPhysicalDeviceProperties& props) {
  if (!cache) return;
  const std::string path = pipeline_cache_path(props);
  if (path.empty()) return;
  size_t n = 0;
  if (vkGetPipelineCacheData(dev, cache, &n, nullptr) != VK_SUCCESS || n == 0) return;
  std::vector<char> data(n);
  if (vkGetPipelineCacheData(dev, cache, &n, data.data()) != VK_SUCCESS) return;
  // Written to a temporary name and renamed, so a concurrent reader never sees half a file.
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  const std::string tmp = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) return;
    out.write(data.data(), static_cast<std::streamsize>(n));
    if (!out) return;
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

}  // namespace zen_vk
