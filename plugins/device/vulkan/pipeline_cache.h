// The VkPipelineCache on disk: one file per device model and driver build, named by the
// device's pipelineCacheUUID, under $XDG_CACHE_HOME/zen-engine/vulkan/ (or
// ~/.cache/zen-engine/vulkan/). Loaded when the device opens, saved when it closes; a missing
// or stale file just means an empty cache (the driver validates the header).
#pragma once

#include <vulkan/vulkan.h>

#include <string>

namespace zen_vk {

std::string pipeline_cache_path(const VkPhysicalDeviceProperties& props);
VkPipelineCache load_pipeline_cache(VkDevice dev, const VkPhysicalDeviceProperties& props);
void save_pipeline_cache(VkDevice dev, VkPipelineCache cache,
                         const VkPhysicalDeviceProperties& props);

}  // namespace zen_vk
