// The ops the Vulkan device runs: which graph nodes it accepts (supports) and how each is
// recorded into the current command buffer (record). Everything supports() accepts, record()
// handles; everything else stays on another device.
#pragma once

#include <zen/graph.h>

namespace zen_vk {

class VulkanDevice;

bool supports(const VulkanDevice& dev, const zen_graph& g, int32_t node);
void record(VulkanDevice& dev, const zen_graph& g, int32_t node);

}  // namespace zen_vk
