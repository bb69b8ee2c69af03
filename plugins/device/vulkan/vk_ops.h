// The ops the Vulkan device runs: which graph nodes it accepts (supports) and how each is
// recorded into the current command buffer (record). Everything supports() accepts, record()
// handles; everything else stays on another device.
#pragma once

#include <zen/graph.h>

namespace zen_vk {

class VulkanDevice;

bool supports(const VulkanDevice& dev, const zen_graph& g, int32_t node);
// Records the node at position `pos` of g.nodes, or it and the nodes after it as one fused
// kernel where that computes exactly what they would (vk_ops.cpp, "fusion"); returns how many
// nodes of g.nodes it recorded (at least 1).
uint32_t record(VulkanDevice& dev, const zen_graph& g, uint32_t pos);

}  // namespace zen_vk
