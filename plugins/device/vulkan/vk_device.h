// One opened Vulkan device: device-local buffers filled and read through a host-visible
// staging buffer and copy commands (also where the memory is host-visible, as on lavapipe, so
// the path real GPUs take is the one exercised), and compute(): the scheduler's subgraph
// recorded into one command buffer (a pipeline barrier between dispatches), submitted with a
// fence that synchronize() waits on. Descriptor sets come from a pool reset per graph;
// shapes and strides go in push constants. Pipelines are created on first use through a
// VkPipelineCache saved under $XDG_CACHE_HOME/zen-engine/vulkan/ (pipeline_cache.h).
//
// Thread safety: one host thread at a time per device (as the CPU device).
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <zen/device.hpp>

#include "shaders.h"
#include "vk_instance.h"

namespace zen_vk {

// What a zen_buffer* points to inside this plugin.
struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint64_t size = 0;
};

// A tensor as a shader sees it: the buffer range bound to one binding, and the byte offset of
// the tensor's first element inside that range (the `off_*` push constants).
struct Binding {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0, range = VK_WHOLE_SIZE;
  uint32_t residual = 0;
};

inline constexpr int kBindings = 6;          // storage buffers per dispatch (shaders/common.glsl)
inline constexpr uint32_t kPushBytes = 128;  // the minimum every Vulkan device guarantees

class VulkanDevice final : public zen::Device {
 public:
  VulkanDevice(std::shared_ptr<Instance> inst, const PhysicalDevice& pd);
  ~VulkanDevice() override;

  bool supports_op(const zen_graph& g, int32_t node) override;
  zen_buffer* alloc(uint64_t bytes) override;
  void free(zen_buffer* buf) override;
  void* host_ptr(zen_buffer*) override { return nullptr; }  // not host-visible: staged
  void upload(zen_buffer* buf, uint64_t off, const void* src, uint64_t bytes) override;
  void download(zen_buffer* buf, uint64_t off, void* dst, uint64_t bytes) override;
  void compute(const zen_graph& g) override;
  void synchronize() override;

  // ---- used by the op recorders (vk_ops.cpp) ----
  const PhysicalDevice& physical() const { return pd_; }
  uint64_t max_range() const { return max_range_; }
  // Binding for the bytes [t.offset + rel, + extent) of t's buffer; throws when the range is
  // larger than the device can bind at once.
  Binding bind(const zen_tensor& t, uint64_t extent, uint64_t rel = 0) const;
  // Records one dispatch of `groups` workgroups (any count: a 2D grid past 65535) and a
  // barrier after it. Missing bindings get a placeholder buffer.
  // The status buffer shaders report bad row ids in (checked by synchronize()).
  Binding status_binding() const { return {status_->buffer, 0, 16, 0}; }
  void dispatch(Shader s, std::initializer_list<Binding> binds, const void* push, size_t bytes,
                uint64_t groups);
  // A device-local scratch range of at least `bytes` for the graph being recorded (the
  // quantized activations of a matmul). Every call returns the same buffer while it is big
  // enough: dispatches are ordered by barriers, so one node's scratch is dead by the next.
  // Growing retires the old buffer until the graph that may still use it has finished.
  Binding scratch(uint64_t bytes);

 private:
  void destroy();
  void wait_pending();
  void ensure_staging();
  void run_transfer(const std::function<void(VkCommandBuffer)>& record);
  // Resets `fence` and submits the recorded `cmd` to the queue, signalling it.
  void submit(VkCommandBuffer cmd, VkFence fence);
  VkPipeline pipeline(Shader s);
  uint32_t memory_type(uint32_t bits, VkMemoryPropertyFlags want) const;
  Buffer* make_buffer(uint64_t bytes, VkBufferUsageFlags usage, VkMemoryPropertyFlags props);
  void destroy_buffer(Buffer* b);

  std::shared_ptr<Instance> inst_;
  PhysicalDevice pd_;
  VkPhysicalDeviceMemoryProperties mem_{};
  uint64_t max_range_ = 0, offset_align_ = 16, max_alloc_ = 0;
  VkDevice dev_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool cmd_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE, xfer_cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE, xfer_fence_ = VK_NULL_HANDLE;
  bool pending_ = false;  // a compute submit whose fence has not been waited
  uint32_t dispatches_ = 0;

  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkDescriptorPool desc_pool_ = VK_NULL_HANDLE;
  uint32_t desc_capacity_ = 0;
  VkPipelineCache cache_ = VK_NULL_HANDLE;
  std::array<VkShaderModule, static_cast<size_t>(Shader::kCount)> modules_{};
  std::array<VkPipeline, static_cast<size_t>(Shader::kCount)> pipelines_{};

  Buffer* staging_ = nullptr;  // host-visible, coherent, persistently mapped
  void* staging_map_ = nullptr;
  Buffer* status_ = nullptr;  // host-visible: what, id, limit of the first bad row id
  uint32_t* status_map_ = nullptr;
  Buffer* placeholder_ = nullptr;  // bound to the bindings a dispatch does not use
  Buffer* scratch_ = nullptr;
  std::vector<Buffer*> retired_;  // scratch buffers the recorded graph may still use
};

}  // namespace zen_vk
