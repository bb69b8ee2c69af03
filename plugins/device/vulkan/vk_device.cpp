#include "vk_device.h"

#include <algorithm>
#include <cstring>

#include <zen/plugin.hpp>

#include "pipeline_cache.h"
#include "vk_ops.h"
#include "vk_util.h"

namespace zen_vk {
namespace {

constexpr uint64_t kStagingBytes = 32ull << 20;  // uploads/downloads go through in such chunks
// Descriptor sets per graph node the pool is sized for: most nodes take one dispatch; concat
// and tensors split into windows take a few (nodes that take none leave room for them).
constexpr uint32_t kSetsPerNode = 8;

Buffer& buffer(zen_buffer* b) {
  if (!b) throw zen::Error(ZEN_ERR_INVALID_ARG, "vulkan: NULL buffer");
  return *reinterpret_cast<Buffer*>(b);
}

void check_range(const Buffer& b, uint64_t off, uint64_t bytes, const char* what) {
  if (off > b.size || bytes > b.size - off)
    throw zen::Error(ZEN_ERR_INVALID_ARG, std::string("vulkan: ") + what + " of " +
                                              std::to_string(bytes) + " bytes at " +
                                              std::to_string(off) + " runs past a " +
                                              std::to_string(b.size) + "-byte buffer");
}

}  // namespace

VulkanDevice::VulkanDevice(std::shared_ptr<Instance> inst, const PhysicalDevice& pd)
    : inst_(std::move(inst)), pd_(pd) {
  vkGetPhysicalDeviceMemoryProperties(pd_.handle, &mem_);
  max_range_ = pd_.props.limits.maxStorageBufferRange & ~uint64_t{3};
  offset_align_ = std::max<uint64_t>(4, pd_.props.limits.minStorageBufferOffsetAlignment);
  VkPhysicalDeviceMaintenance3Properties m3{};
  m3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
  VkPhysicalDeviceProperties2 p2{};
  p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  p2.pNext = &m3;
  vkGetPhysicalDeviceProperties2(pd_.handle, &p2);
  max_alloc_ = m3.maxMemoryAllocationSize;

  const float prio = 1.0f;
  VkDeviceQueueCreateInfo qci{};
  qci.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  qci.queueFamilyIndex = pd_.compute_family;
  qci.queueCount = 1;
  qci.pQueuePriorities = &prio;
  VkPhysicalDeviceFeatures feats{};
  feats.shaderFloat64 = pd_.float64 ? VK_TRUE : VK_FALSE;
  feats.shaderInt64 = VK_FALSE;
  VkDeviceCreateInfo dci{};
  dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.pEnabledFeatures = &feats;
  check(vkCreateDevice(pd_.handle, &dci, nullptr, &dev_), "vkCreateDevice");
  vkGetDeviceQueue(dev_, pd_.compute_family, 0, &queue_);

  try {
    VkCommandPoolCreateInfo pci{};
    pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = pd_.compute_family;
    check(vkCreateCommandPool(dev_, &pci, nullptr, &cmd_pool_), "vkCreateCommandPool");
    VkCommandBufferAllocateInfo cai{};
    cai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    cai.commandPool = cmd_pool_;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    check(vkAllocateCommandBuffers(dev_, &cai, &cmd_), "vkAllocateCommandBuffers");
    check(vkAllocateCommandBuffers(dev_, &cai, &xfer_cmd_), "vkAllocateCommandBuffers");
    VkFenceCreateInfo fci{};
    fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    check(vkCreateFence(dev_, &fci, nullptr, &fence_), "vkCreateFence");
    check(vkCreateFence(dev_, &fci, nullptr, &xfer_fence_), "vkCreateFence");

    VkDescriptorSetLayoutBinding b{};
    b.binding = 0;
    b.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    b.descriptorCount = kBindings;
    b.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    VkDescriptorSetLayoutCreateInfo lci{};
    lci.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    lci.bindingCount = 1;
    lci.pBindings = &b;
    check(vkCreateDescriptorSetLayout(dev_, &lci, nullptr, &set_layout_),
          "vkCreateDescriptorSetLayout");
    VkPushConstantRange pcr{VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushBytes};
    VkPipelineLayoutCreateInfo plci{};
    plci.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    plci.setLayoutCount = 1;
    plci.pSetLayouts = &set_layout_;
    plci.pushConstantRangeCount = 1;
    plci.pPushConstantRanges = &pcr;
    check(vkCreatePipelineLayout(dev_, &plci, nullptr, &layout_), "vkCreatePipelineLayout");
    cache_ = load_pipeline_cache(dev_, pd_.props);
    status_ =
        make_buffer(16, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    void* map = nullptr;
    check(vkMapMemory(dev_, status_->memory, 0, VK_WHOLE_SIZE, 0, &map), "vkMapMemory");
    status_map_ = static_cast<uint32_t*>(map);
    std::memset(status_map_, 0, 16);
    placeholder_ =
        make_buffer(256, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  } catch (...) {
    destroy();
    throw;
  }
}

VulkanDevice::~VulkanDevice() { destroy(); }

void VulkanDevice::destroy() {
  if (!dev_) return;
  vkDeviceWaitIdle(dev_);
  save_pipeline_cache(dev_, cache_, pd_.props);
  for (VkPipeline p : pipelines_)
    if (p) vkDestroyPipeline(dev_, p, nullptr);
  for (VkShaderModule m : modules_)
    if (m) vkDestroyShaderModule(dev_, m, nullptr);
  pipelines_ = {};
  modules_ = {};
  if (cache_) vkDestroyPipelineCache(dev_, cache_, nullptr);
  if (desc_pool_) vkDestroyDescriptorPool(dev_, desc_pool_, nullptr);
  if (layout_) vkDestroyPipelineLayout(dev_, layout_, nullptr);
  if (set_layout_) vkDestroyDescriptorSetLayout(dev_, set_layout_, nullptr);
  if (staging_) {
    vkUnmapMemory(dev_, staging_->memory);
    destroy_buffer(staging_);
  }
  if (status_) {
    vkUnmapMemory(dev_, status_->memory);
    destroy_buffer(status_);
  }
  if (placeholder_) destroy_buffer(placeholder_);
  if (scratch_) destroy_buffer(scratch_);
  for (Buffer* b : retired_) destroy_buffer(b);
  retired_.clear();
  if (fence_) vkDestroyFence(dev_, fence_, nullptr);
  if (xfer_fence_) vkDestroyFence(dev_, xfer_fence_, nullptr);
  if (cmd_pool_) vkDestroyCommandPool(dev_, cmd_pool_, nullptr);
  vkDestroyDevice(dev_, nullptr);
  dev_ = VK_NULL_HANDLE;
}

uint32_t VulkanDevice::memory_type(uint32_t bits, VkMemoryPropertyFlags want) const {
  for (uint32_t i = 0; i < mem_.memoryTypeCount; ++i)
    if ((bits & (1u << i)) && (mem_.memoryTypes[i].propertyFlags & want) == want) return i;
  fail("no memory type with properties 0x" + std::to_string(want));
}

Buffer* VulkanDevice::make_buffer(uint64_t bytes, VkBufferUsageFlags usage,
                                  VkMemoryPropertyFlags props) {
  const uint64_t size = (std::max<uint64_t>(bytes, 4) + 15) & ~uint64_t{15};
  if (max_alloc_ && size > max_alloc_)
    throw zen::Error(ZEN_ERR_OUT_OF_MEMORY,
                     "vulkan: a buffer of " + std::to_string(bytes) +
                         " bytes exceeds the device's maxMemoryAllocationSize (" +
                         std::to_string(max_alloc_) + ")");
  auto b = std::make_unique<Buffer>();
  b->size = bytes;
  VkBufferCreateInfo bci{};
  bci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  bci.size = size;
  bci.usage = usage;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  check(vkCreateBuffer(dev_, &bci, nullptr, &b->buffer), "vkCreateBuffer");
  VkMemoryRequirements req{};
  vkGetBufferMemoryRequirements(dev_, b->buffer, &req);
  VkMemoryAllocateInfo mai{};
  mai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  mai.allocationSize = req.size;
  try {
    mai.memoryTypeIndex = memory_type(req.memoryTypeBits, props);
    check(vkAllocateMemory(dev_, &mai, nullptr, &b->memory), "vkAllocateMemory");
    check(vkBindBufferMemory(dev_, b->buffer, b->memory, 0), "vkBindBufferMemory");
  } catch (...) {
    destroy_buffer(b.release());
    throw;
  }
  return b.release();
}

void VulkanDevice::destroy_buffer(Buffer* b) {
  if (!b) return;
  if (b->buffer) vkDestroyBuffer(dev_, b->buffer, nullptr);
  if (b->memory) vkFreeMemory(dev_, b->memory, nullptr);
  delete b;
}

zen_buffer* VulkanDevice::alloc(uint64_t bytes) {
  return reinterpret_cast<zen_buffer*>(make_buffer(bytes,
                                                   VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                                   VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT));
}

void VulkanDevice::free(zen_buffer* b) {
  if (!b) return;
  wait_pending();  // a graph in flight may still use it
  destroy_buffer(reinterpret_cast<Buffer*>(b));
}

void VulkanDevice::wait_pending() {
  if (!pending_) return;
  pending_ = false;
  check(vkWaitForFences(dev_, 1, &fence_, VK_TRUE, UINT64_MAX), "vkWaitForFences");
}

void VulkanDevice::synchronize() {
  wait_pending();
  if (status_map_[0] != 0) {
    const uint32_t what = status_map_[0], limit = status_map_[2];
    const int32_t id = static_cast<int32_t>(status_map_[1]);
    std::memset(status_map_, 0, 16);
    throw zen::Error(ZEN_ERR_INVALID_ARG,
                     std::string("vulkan: ") + (what == 1 ? "get_rows" : "set_rows") + ": row id " +
                         std::to_string(id) + " is outside 0.." + std::to_string(limit - 1));
  }
}

void VulkanDevice::ensure_staging() {
  if (staging_) return;
  staging_ = make_buffer(
      kStagingBytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  check(vkMapMemory(dev_, staging_->memory, 0, VK_WHOLE_SIZE, 0, &staging_map_), "vkMapMemory");
}

// One transfer command buffer, submitted and waited for (uploads and downloads are
// synchronous in the device ABI).
void VulkanDevice::submit(VkCommandBuffer cmd, VkFence fence) {
  VkSubmitInfo si{};
  si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd;
  check(vkResetFences(dev_, 1, &fence), "vkResetFences");
  check(vkQueueSubmit(queue_, 1, &si, fence), "vkQueueSubmit");
}

void VulkanDevice::run_transfer(const std::function<void(VkCommandBuffer)>& record) {
  check(vkResetCommandBuffer(xfer_cmd_, 0), "vkResetCommandBuffer");
  VkCommandBufferBeginInfo bi{};
  bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(vkBeginCommandBuffer(xfer_cmd_, &bi), "vkBeginCommandBuffer");
  record(xfer_cmd_);
  check(vkEndCommandBuffer(xfer_cmd_), "vkEndCommandBuffer");
  submit(xfer_cmd_, xfer_fence_);
  check(vkWaitForFences(dev_, 1, &xfer_fence_, VK_TRUE, UINT64_MAX), "vkWaitForFences");
}

void VulkanDevice::upload(zen_buffer* b, uint64_t off, const void* src, uint64_t bytes) {
  Buffer& buf = buffer(b);
  check_range(buf, off, bytes, "upload");
  wait_pending();
  ensure_staging();
  for (uint64_t done = 0; done < bytes;) {
    const uint64_t n = std::min(kStagingBytes, bytes - done);
    std::memcpy(staging_map_, static_cast<const char*>(src) + done, n);
    run_transfer([&](VkCommandBuffer c) {
      VkBufferCopy copy{0, off + done, n};
      vkCmdCopyBuffer(c, staging_->buffer, buf.buffer, 1, &copy);
    });
    done += n;
  }
}

void VulkanDevice::download(zen_buffer* b, uint64_t off, void* dst, uint64_t bytes) {
  Buffer& buf = buffer(b);
  check_range(buf, off, bytes, "download");
  wait_pending();
  ensure_staging();
  for (uint64_t done = 0; done < bytes;) {
    const uint64_t n = std::min(kStagingBytes, bytes - done);
    run_transfer([&](VkCommandBuffer c) {
      VkBufferCopy copy{off + done, 0, n};
      vkCmdCopyBuffer(c, buf.buffer, staging_->buffer, 1, &copy);
    });
    std::memcpy(static_cast<char*>(dst) + done, staging_map_, n);
    done += n;
  }
}

VkPipeline VulkanDevice::pipeline(Shader s) {
  const size_t i = static_cast<size_t>(s);
  if (pipelines_[i]) return pipelines_[i];
  const ShaderCode& code = shader_code(s);
  if (!modules_[i]) {
    VkShaderModuleCreateInfo mci{};
    mci.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    mci.codeSize = code.bytes;
    mci.pCode = code.words;
    check(vkCreateShaderModule(dev_, &mci, nullptr, &modules_[i]),
          (std::string("vkCreateShaderModule(") + code.name + ")").c_str());
  }
  VkComputePipelineCreateInfo ci{};
  ci.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = modules_[i];
  ci.stage.pName = "main";
  ci.layout = layout_;
  check(vkCreateComputePipelines(dev_, cache_, 1, &ci, nullptr, &pipelines_[i]),
        (std::string("vkCreateComputePipelines(") + code.name + ")").c_str());
  return pipelines_[i];
}

Binding VulkanDevice::bind(const zen_tensor& t, uint64_t extent, uint64_t rel) const {
  if (!t.buffer) fail(std::string("tensor '") + (t.name ? t.name : "") + "' has no device buffer");
  const Buffer& b = *reinterpret_cast<const Buffer*>(t.buffer);
  const uint64_t start = t.offset + rel;
  Binding out;
  out.buffer = b.buffer;
  out.offset = start & ~(offset_align_ - 1);
  out.residual = static_cast<uint32_t>(start - out.offset);
  // Bind as much as allowed (unaligned word loads may read a word past the tensor's end).
  const uint64_t alloc = (std::max<uint64_t>(b.size, 4) + 15) & ~uint64_t{15};
  out.range = std::min(alloc - out.offset, max_range_);
  if (out.residual + extent > out.range)
    fail("tensor '" + std::string(t.name ? t.name : "") + "' spans " + std::to_string(extent) +
         " bytes, more than one binding can reach (maxStorageBufferRange " +
         std::to_string(max_range_) + ")");
  return out;
}

void VulkanDevice::dispatch(Shader s, std::initializer_list<Binding> binds, const void* push,
                            size_t bytes, uint64_t groups) {
  if (groups == 0) return;
  if (groups > 65535ull * 65535ull) fail("dispatch of " + std::to_string(groups) + " groups");
  const VkPipeline p = pipeline(s);
  VkDescriptorSetAllocateInfo ai{};
  ai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  ai.descriptorPool = desc_pool_;
  ai.descriptorSetCount = 1;
  ai.pSetLayouts = &set_layout_;
  VkDescriptorSet set = VK_NULL_HANDLE;
  check(vkAllocateDescriptorSets(dev_, &ai, &set), "vkAllocateDescriptorSets");
  VkDescriptorBufferInfo info[kBindings];
  int i = 0;
  for (const Binding& b : binds) info[i++] = {b.buffer, b.offset, b.range};
  for (; i < kBindings; ++i) info[i] = {placeholder_->buffer, 0, VK_WHOLE_SIZE};
  VkWriteDescriptorSet w{};
  w.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
  w.dstSet = set;
  w.dstBinding = 0;
  w.descriptorCount = kBindings;
  w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  w.pBufferInfo = info;
  vkUpdateDescriptorSets(dev_, 1, &w, 0, nullptr);

  vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, p);
  vkCmdBindDescriptorSets(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &set, 0, nullptr);
  vkCmdPushConstants(cmd_, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                     static_cast<uint32_t>(std::min<size_t>(bytes, kPushBytes)), push);
  const uint32_t x = static_cast<uint32_t>(std::min<uint64_t>(groups, 65535));
  const uint32_t y = static_cast<uint32_t>((groups + x - 1) / x);
  vkCmdDispatch(cmd_, x, y, 1);
  // The next dispatch may read what this one wrote (or overwrite what it read).
  VkMemoryBarrier mb{};
  mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
  ++dispatches_;
}

bool VulkanDevice::supports_op(const zen_graph& g, int32_t node) {
  return zen_vk::supports(*this, g, node);
}

Binding VulkanDevice::scratch(uint64_t bytes) {
  if (bytes > max_range_) fail("scratch of " + std::to_string(bytes) + " bytes");
  if (!scratch_ || scratch_->size < bytes) {
    if (scratch_) retired_.push_back(scratch_);
    scratch_ = nullptr;
    scratch_ = make_buffer(std::max<uint64_t>(bytes, 1u << 20), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                           VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  }
  return {scratch_->buffer, 0, VK_WHOLE_SIZE, 0};
}

void VulkanDevice::compute(const zen_graph& g) {
  wait_pending();
  for (Buffer* b : retired_) destroy_buffer(b);
  retired_.clear();
  const uint32_t need = g.n_nodes * kSetsPerNode + 16;
  if (need > desc_capacity_) {
    if (desc_pool_) vkDestroyDescriptorPool(dev_, desc_pool_, nullptr);
    desc_pool_ = VK_NULL_HANDLE;
    desc_capacity_ = 0;
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, need * kBindings};
    VkDescriptorPoolCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    ci.maxSets = need;
    ci.poolSizeCount = 1;
    ci.pPoolSizes = &size;
    check(vkCreateDescriptorPool(dev_, &ci, nullptr, &desc_pool_), "vkCreateDescriptorPool");
    desc_capacity_ = need;
  } else {
    check(vkResetDescriptorPool(dev_, desc_pool_, 0), "vkResetDescriptorPool");
  }
  check(vkResetCommandBuffer(cmd_, 0), "vkResetCommandBuffer");
  VkCommandBufferBeginInfo bi{};
  bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(vkBeginCommandBuffer(cmd_, &bi), "vkBeginCommandBuffer");
  dispatches_ = 0;
  try {
    for (uint32_t n = 0; n < g.n_nodes; ++n) record(*this, g, g.nodes[n]);
  } catch (...) {
    vkEndCommandBuffer(cmd_);
    throw;
  }
  check(vkEndCommandBuffer(cmd_), "vkEndCommandBuffer");
  if (dispatches_ == 0) return;
  submit(cmd_, fence_);
  pending_ = true;
}

}  // namespace zen_vk
