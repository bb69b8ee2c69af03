#include "vk_device.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>

#include <zen/plugin.hpp>

#include "pipeline_cache.h"
#include "vk_ops.h"
#include "vk_util.h"

namespace zen_vk {
namespace {

constexpr uint64_t kStagingBytes = 32ull << 20;  // uploads/downloads go through in such chunks
// Uploads of at most kStageMax bytes wait in a ring of kRingBytes for the next command buffer.
constexpr uint64_t kRingBytes = 4ull << 20, kStageMax = 1ull << 20;
// Downloads learned as a recording's readbacks, at most this many bytes per recording.
constexpr uint64_t kReadbackMax = 16ull << 20;
// Recorded graphs kept for replay (a server alternates a few shapes: prefill, decode, ...).
constexpr size_t kMaxRecordings = 8;
// Descriptor sets per graph node the pool is sized for: most nodes take one dispatch; concat
// and tensors split into windows take a few (nodes that take none leave room for them).
constexpr uint32_t kSetsPerNode = 8;

uint64_t align16(uint64_t v) { return (v + 15) & ~uint64_t{15}; }

// Which bindings (positions in dispatch()'s list) each shader writes; the others it only
// reads. A shader missing here is taken to write all of them (always a barrier: safe).
uint32_t writes_of(Shader s) {
  switch (s) {
    case Shader::kCopy:
    case Shader::kUnary:
    case Shader::kArgsort:
    case Shader::kQuantizeAct:
    case Shader::kUpsample:
      return 1u << 1;
    case Shader::kGetRows:
    case Shader::kSetRows:
    case Shader::kBinary:
    case Shader::kSoftmax:
    case Shader::kConv:
    case Shader::kArgsortMerge:
      return 1u << 2;
    case Shader::kMatmul:  // dst, and with a fused ADD the residual and sum's span
    case Shader::kMatmulExt:
    case Shader::kMatvec:
    case Shader::kMatmulTiled:
      return 1u << 2 | 1u << 5;
    case Shader::kRope:
      return 1u << 3;
    case Shader::kRmsNorm:  // the norm, and the product when fused with its weight's MUL
      return 1u << 1 | 1u << 3;
    case Shader::kAttention:
    case Shader::kAttentionSg:  // dst, or the split-K scratch
      return 1u << 4;
    case Shader::kAttentionMerge:
      return 1u << 1;
    default:
      return ~0u;
  }
}

bool overlaps(VkBuffer b, uint64_t lo, uint64_t hi, VkBuffer c, uint64_t clo, uint64_t chi) {
  return b == c && lo < chi && clo < hi;
}

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
  {
    const uint32_t sg = pd_.subgroup_size;
    const bool can = pd_.subgroup_reduce && sg >= 8 && sg <= 64 && 64 % sg == 0;
    const char* env = std::getenv("ZEN_VULKAN_MATVEC");
    const std::string_view want = env ? env : "";
    const bool gpu = pd_.props.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU;
    if (can && (want == "subgroup" || (want != "rows" && gpu))) matvec_rows_ = 64 / sg;
    const char* gemm = std::getenv("ZEN_VULKAN_GEMM");
    const std::string_view tiled = gemm ? gemm : "";
    tiled_gemm_ = pd_.props.limits.maxComputeWorkGroupInvocations >= 256 &&
                  pd_.props.limits.maxComputeWorkGroupSize[0] >= 256 &&
                  (tiled == "tiled" || (tiled != "rows" && gpu));
    const char* attn = std::getenv("ZEN_VULKAN_ATTENTION");
    const std::string_view path = attn ? attn : "";
    attention_sg_ = pd_.subgroup_reduce && sg >= 8 && sg <= 64 && 64 % sg == 0 &&
                    (path == "subgroup" || path == "split" || (path != "plain" && gpu));
    attention_split_ = path == "split"      ? AttentionSplit::kAlways
                       : path == "subgroup" ? AttentionSplit::kNever
                                            : AttentionSplit::kAuto;
    compute_units_ = pd_.sm_count > 0 ? pd_.sm_count
                     : gpu            ? 0
                                      : std::max(1u, std::thread::hardware_concurrency());
  }

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
  profiler_ = Profiler::create(dev_, pd_);

  try {
    VkCommandPoolCreateInfo pci{};
    pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = pd_.compute_family;
    check(vkCreateCommandPool(dev_, &pci, nullptr, &cmd_pool_), "vkCreateCommandPool");
    xfer_cmd_ = new_command_buffer();
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
  drop_recordings(nullptr);
  profiler_.reset();  // prints its report
  if (layout_) vkDestroyPipelineLayout(dev_, layout_, nullptr);
  if (set_layout_) vkDestroyDescriptorSetLayout(dev_, set_layout_, nullptr);
  for (auto [b, map] : {std::pair{staging_, staging_map_}, std::pair{ring_, ring_map_},
                        std::pair{readback_, readback_map_}})
    if (b) {
      if (map) vkUnmapMemory(dev_, b->memory);
      destroy_buffer(b);
    }
  if (status_) {
    vkUnmapMemory(dev_, status_->memory);
    destroy_buffer(status_);
  }
  if (placeholder_) destroy_buffer(placeholder_);
  if (scratch_) destroy_buffer(scratch_);
  free_retired();
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
    ++counters_.allocations;
    counters_.allocated_bytes += b->size;
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
  if (b->memory) {
    vkFreeMemory(dev_, b->memory, nullptr);
    counters_.allocated_bytes -= b->size;
  }
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
  wait_pending();   // a graph in flight may still use it
  flush_uploads();  // staged copies may name it
  // Recordings and their readbacks may bind it (frees are rare: a re-plan growing an arena).
  drop_recordings(nullptr);
  destroy_buffer(reinterpret_cast<Buffer*>(b));
}

void VulkanDevice::wait(VkFence fence) {
  check(vkWaitForFences(dev_, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  ++counters_.host_waits;
}

void VulkanDevice::wait_pending() {
  if (!pending_) return;
  pending_ = false;
  wait(fence_);
  if (profiler_ && last_run_) profiler_->collect(last_run_->marks);
}

void VulkanDevice::free_retired() {
  for (Buffer* b : retired_) destroy_buffer(b);
  retired_.clear();
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

void VulkanDevice::submit(std::initializer_list<VkCommandBuffer> cmds, VkFence fence) {
  VkSubmitInfo si{};
  si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  si.commandBufferCount = static_cast<uint32_t>(cmds.size());
  si.pCommandBuffers = cmds.begin();
  check(vkResetFences(dev_, 1, &fence), "vkResetFences");
  check(vkQueueSubmit(queue_, 1, &si, fence), "vkQueueSubmit");
  ++counters_.submits;
}

// One transfer command buffer, submitted and waited for (uploads and downloads are
// synchronous in the device ABI).
void VulkanDevice::run_transfer(const std::function<void(VkCommandBuffer)>& record) {
  check(vkResetCommandBuffer(xfer_cmd_, 0), "vkResetCommandBuffer");
  VkCommandBufferBeginInfo bi{};
  bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(vkBeginCommandBuffer(xfer_cmd_, &bi), "vkBeginCommandBuffer");
  record(xfer_cmd_);
  check(vkEndCommandBuffer(xfer_cmd_), "vkEndCommandBuffer");
  submit({xfer_cmd_}, xfer_fence_);
  wait(xfer_fence_);
}

void VulkanDevice::record_copies(VkCommandBuffer cmd, const std::vector<StagedCopy>& copies) {
  if (copies.empty()) return;
  for (const StagedCopy& c : copies) {
    VkBufferCopy region{c.ring_offset, c.dst_offset, c.bytes};
    vkCmdCopyBuffer(cmd, ring_->buffer, c.dst->buffer, 1, &region);
  }
  VkMemoryBarrier mb{};
  mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask =
      VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1,
                       &mb, 0, nullptr, 0, nullptr);
}

void VulkanDevice::flush_uploads() {
  if (staged_.empty()) return;
  run_transfer([&](VkCommandBuffer c) { record_copies(c, staged_); });
  staged_.clear();
  ring_used_ = 0;
}

void VulkanDevice::upload(zen_buffer* b, uint64_t off, const void* src, uint64_t bytes) {
  Buffer& buf = buffer(b);
  check_range(buf, off, bytes, "upload");
  wait_pending();  // the graph in flight may read what this overwrites, or the ring
  readback_valid_ = false;
  after_run_ = false;
  counters_.upload_bytes += bytes;
  if (bytes == 0) return;
  if (bytes <= kStageMax) {
    if (staged_.empty()) ring_used_ = 0;
    // Copies in one command buffer are unordered: an overlapping one goes after a flush.
    bool overlap = ring_used_ + align16(bytes) > kRingBytes;
    for (const StagedCopy& c : staged_)
      overlap =
          overlap || (c.dst == &buf && off < c.dst_offset + c.bytes && c.dst_offset < off + bytes);
    if (overlap) flush_uploads();
    if (!ring_) {
      ring_ =
          make_buffer(kRingBytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
      check(vkMapMemory(dev_, ring_->memory, 0, VK_WHOLE_SIZE, 0, &ring_map_), "vkMapMemory");
    }
    std::memcpy(static_cast<char*>(ring_map_) + ring_used_, src, bytes);
    staged_.push_back({&buf, off, ring_used_, bytes});
    ring_used_ += align16(bytes);
    return;
  }
  flush_uploads();  // keeps overlapping writes in the order they were made
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

bool VulkanDevice::read_back(const Buffer& b, uint64_t off, void* dst, uint64_t bytes) {
  if (!readback_valid_ || !last_run_) return false;
  for (const Readback& r : last_run_->readbacks)
    if (r.src == &b && off >= r.offset && off + bytes <= r.offset + r.bytes) {
      std::memcpy(dst, static_cast<const char*>(readback_map_) + r.at + (off - r.offset), bytes);
      return true;
    }
  return false;
}

void VulkanDevice::learn_readback(Buffer& b, uint64_t off, uint64_t bytes) {
  if (!after_run_ || !last_run_) return;
  std::vector<Readback>& list = last_run_->readbacks;
  uint64_t at = 0;
  for (const Readback& r : list) at = std::max(at, r.at + align16(r.bytes));
  if (at + bytes > kReadbackMax) return;
  ensure_readback(at + bytes);  // now, while warming up, not in a later step
  list.push_back({&b, off, bytes, at});
  last_run_->readbacks_recorded = false;
}

void VulkanDevice::download(zen_buffer* b, uint64_t off, void* dst, uint64_t bytes) {
  Buffer& buf = buffer(b);
  check_range(buf, off, bytes, "download");
  wait_pending();
  counters_.download_bytes += bytes;
  if (bytes == 0 || read_back(buf, off, dst, bytes)) return;
  flush_uploads();
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
  learn_readback(buf, off, bytes);
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
  // attention_sg.comp sizes its per-lane registers for the device's subgroups (constant 0:
  // elements per lane, 256 / subgroup size).
  const uint32_t per_lane = std::max(1u, 256u / std::max(1u, pd_.subgroup_size));
  const VkSpecializationMapEntry entry{0, 0, sizeof per_lane};
  const VkSpecializationInfo spec{1, &entry, sizeof per_lane, &per_lane};
  if (s == Shader::kAttentionSg) ci.stage.pSpecializationInfo = &spec;
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
  out.lo = start;
  out.hi = start + extent;
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
  if (!rec_) fail("dispatch outside a recording");
  const VkCommandBuffer cmd = rec_->cmd;
  const VkPipeline p = pipeline(s);
  VkDescriptorSetAllocateInfo ai{};
  ai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  ai.descriptorPool = rec_->pool;
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
  ++counters_.descriptor_writes;

  // A barrier only where this dispatch reads or writes what one since the last barrier wrote,
  // or writes what one read.
  const uint32_t writes = writes_of(s);
  bool hazard = false;
  i = 0;
  for (const Binding& b : binds) {
    const bool w_i = (writes >> i++) & 1u;
    if (b.lo == b.hi) continue;
    for (const Range& r : written_)
      hazard = hazard || overlaps(b.buffer, b.lo, b.hi, r.buffer, r.lo, r.hi);
    if (w_i)
      for (const Range& r : read_)
        hazard = hazard || overlaps(b.buffer, b.lo, b.hi, r.buffer, r.lo, r.hi);
  }
  if (hazard) {
    VkMemoryBarrier mb{};
    mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
    ++rec_->barriers;
    written_.clear();
    read_.clear();
  }
  i = 0;
  for (const Binding& b : binds) {
    const bool w_i = (writes >> i++) & 1u;
    if (b.lo == b.hi) continue;
    (w_i ? written_ : read_).push_back({b.buffer, b.lo, b.hi});
    // Rewritten activations, or a rewritten scratch, are no longer what it holds quantized
    // (the quantize dispatch itself is remembered after this).
    if (w_i && (overlaps(b.buffer, b.lo, b.hi, quant_src_.buffer, quant_src_.lo, quant_src_.hi) ||
                (scratch_ && b.buffer == scratch_->buffer)))
      quant_key_.clear();
  }

  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &set, 0, nullptr);
  vkCmdPushConstants(cmd, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                     static_cast<uint32_t>(std::min<size_t>(bytes, kPushBytes)), push);
  const uint32_t x = static_cast<uint32_t>(std::min<uint64_t>(groups, 65535));
  const uint32_t y = static_cast<uint32_t>((groups + x - 1) / x);
  vkCmdDispatch(cmd, x, y, 1);
  ++rec_->dispatches;
  if (profiler_)
    profiler_->stamp(cmd, rec_->marks,
                     std::string(shader_code(s).name) + "[" + std::to_string(groups) + "]");
}

bool VulkanDevice::supports_op(const zen_graph& g, int32_t node) {
  return zen_vk::supports(*this, g, node);
}

Binding VulkanDevice::scratch(uint64_t bytes) {
  if (bytes > max_range_) fail("scratch of " + std::to_string(bytes) + " bytes");
  if (!scratch_ || scratch_->size < bytes) {
    if (scratch_) {
      // Other recordings bind the old buffer: they go. This one may too (an earlier node):
      // it runs once and is then dropped with the old buffer.
      retired_.push_back(scratch_);
      quant_key_.clear();
      drop_recordings(rec_);
      if (rec_) rec_->one_shot = true;
    }
    scratch_ = nullptr;
    scratch_ = make_buffer(std::max<uint64_t>(bytes, 1u << 20), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                           VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
  }
  return {scratch_->buffer, 0, VK_WHOLE_SIZE, 0, 0, bytes};
}

std::pair<Binding, bool> VulkanDevice::quantized_scratch(const std::vector<uint64_t>& key,
                                                         uint64_t bytes) {
  const bool held = scratch_ && scratch_->size >= bytes && !quant_key_.empty() && quant_key_ == key;
  const Binding b = scratch(bytes);  // may grow (and forget) first
  return {b, held};
}

void VulkanDevice::remember_quantized(const Binding& src, std::vector<uint64_t> key) {
  quant_key_ = std::move(key);
  quant_src_ = {src.buffer, src.lo, src.hi};
}

// Everything recording a graph reads: the graph's tensors (not their names or host
// addresses) and the staged copies the command buffer starts with.
void VulkanDevice::signature(const zen_graph& g, std::vector<uint64_t>& out) const {
  out.clear();
  auto put = [&](uint64_t v) { out.push_back(v); };
  auto pair = [&](uint32_t a, uint32_t b) { put(uint64_t{a} | uint64_t{b} << 32); };
  pair(g.n_tensors, g.n_nodes);
  for (uint32_t n = 0; n < g.n_nodes; n += 2)
    pair(static_cast<uint32_t>(g.nodes[n]),
         n + 1 < g.n_nodes ? static_cast<uint32_t>(g.nodes[n + 1]) : 0u);
  for (uint32_t i = 0; i < g.n_tensors; ++i) {
    const zen_tensor& t = *zen_graph_tensor(&g, static_cast<int32_t>(i));
    pair(t.op, t.type);
    for (int d = 0; d < ZEN_MAX_DIMS; ++d) put(static_cast<uint64_t>(t.ne[d]));
    for (int d = 0; d < ZEN_MAX_DIMS; ++d) put(t.nb[d]);
    for (int s = 0; s < ZEN_MAX_SRC; s += 2)
      pair(static_cast<uint32_t>(t.src[s]),
           s + 1 < ZEN_MAX_SRC ? static_cast<uint32_t>(t.src[s + 1]) : 0u);
    for (int p = 0; p < ZEN_MAX_OP_PARAMS; p += 2)
      pair(static_cast<uint32_t>(t.params[p]),
           p + 1 < ZEN_MAX_OP_PARAMS ? static_cast<uint32_t>(t.params[p + 1]) : 0u);
    pair(t.flags, static_cast<uint32_t>(t.view_src));
    put(t.view_offset);
    put(reinterpret_cast<uintptr_t>(t.buffer));
    put(t.offset);
  }
  for (const StagedCopy& c : staged_) {
    put(reinterpret_cast<uintptr_t>(c.dst));
    put(c.dst_offset);
    put(c.ring_offset);
    put(c.bytes);
  }
}

void VulkanDevice::drop_recording(Recording& r) {
  if (&r == last_run_) {
    last_run_ = nullptr;
    readback_valid_ = false;
  }
  VkCommandBuffer cmds[2];
  uint32_t n = 0;
  for (VkCommandBuffer c : {r.cmd, r.readback_cmd})
    if (c) cmds[n++] = c;
  if (n) vkFreeCommandBuffers(dev_, cmd_pool_, n, cmds);
  if (r.pool) vkDestroyDescriptorPool(dev_, r.pool, nullptr);
  if (profiler_) profiler_->release(r.marks);
  r.cmd = r.readback_cmd = VK_NULL_HANDLE;
  r.pool = VK_NULL_HANDLE;
}

void VulkanDevice::drop_recordings(const Recording* keep) {
  std::erase_if(recordings_, [&](std::unique_ptr<Recording>& r) {
    if (r.get() == keep) return false;
    drop_recording(*r);
    return true;
  });
}

VulkanDevice::Recording& VulkanDevice::record_graph(const zen_graph& g,
                                                    std::vector<uint64_t>&& sig) {
  if (recordings_.size() >= kMaxRecordings) {
    auto lru =
        std::min_element(recordings_.begin(), recordings_.end(),
                         [](const auto& a, const auto& b) { return a->last_used < b->last_used; });
    drop_recording(**lru);
    recordings_.erase(lru);
  }
  auto owned = std::make_unique<Recording>();
  Recording& r = *owned;
  r.signature = std::move(sig);
  try {
    const uint32_t sets = g.n_nodes * kSetsPerNode + 16;
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, sets * kBindings};
    VkDescriptorPoolCreateInfo pci{};
    pci.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    pci.maxSets = sets;
    pci.poolSizeCount = 1;
    pci.pPoolSizes = &size;
    check(vkCreateDescriptorPool(dev_, &pci, nullptr, &r.pool), "vkCreateDescriptorPool");
    r.cmd = new_command_buffer();
    VkCommandBufferBeginInfo bi{};
    bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    check(vkBeginCommandBuffer(r.cmd, &bi), "vkBeginCommandBuffer");
    record_copies(r.cmd, staged_);
    r.copies = !staged_.empty();
    if (profiler_) profiler_->begin(r.cmd, r.marks, sets + 1);
    rec_ = &r;
    written_.clear();
    read_.clear();
    quant_key_.clear();
    for (uint32_t pos = 0; pos < g.n_nodes;) pos += record(*this, g, pos);
    rec_ = nullptr;
    check(vkEndCommandBuffer(r.cmd), "vkEndCommandBuffer");
  } catch (...) {
    if (rec_ && r.cmd) vkEndCommandBuffer(r.cmd);
    rec_ = nullptr;
    drop_recording(r);
    throw;
  }
  ++counters_.recordings;
  recordings_.push_back(std::move(owned));
  return r;
}

void VulkanDevice::ensure_readback(uint64_t need) {
  if (readback_ && readback_->size >= need) return;
  if (readback_) {
    vkUnmapMemory(dev_, readback_->memory);
    destroy_buffer(readback_);
    readback_ = nullptr;
    readback_valid_ = false;  // what it held is gone
    for (auto& other : recordings_) other->readbacks_recorded = false;
  }
  need = std::max<uint64_t>(need + (need >> 2), 1u << 20);  // room to learn more
  const VkMemoryPropertyFlags visible =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  try {  // cached host memory reads faster, where the device offers it
    readback_ = make_buffer(need, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                            visible | VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  } catch (const zen::Error&) {
    readback_ = make_buffer(need, VK_BUFFER_USAGE_TRANSFER_DST_BIT, visible);
  }
  check(vkMapMemory(dev_, readback_->memory, 0, VK_WHOLE_SIZE, 0, &readback_map_), "vkMapMemory");
}

VkCommandBuffer VulkanDevice::new_command_buffer() {
  VkCommandBufferAllocateInfo cai{};
  cai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  cai.commandPool = cmd_pool_;
  cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cai.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  check(vkAllocateCommandBuffers(dev_, &cai, &cmd), "vkAllocateCommandBuffers");
  return cmd;
}

void VulkanDevice::record_readbacks(Recording& r) {
  if (!r.readback_cmd) {
    r.readback_cmd = new_command_buffer();
  }
  check(vkResetCommandBuffer(r.readback_cmd, 0), "vkResetCommandBuffer");
  VkCommandBufferBeginInfo bi{};
  bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  check(vkBeginCommandBuffer(r.readback_cmd, &bi), "vkBeginCommandBuffer");
  VkMemoryBarrier mb{};
  mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  vkCmdPipelineBarrier(r.readback_cmd,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
  for (const Readback& rb : r.readbacks) {
    VkBufferCopy region{rb.offset, rb.at, rb.bytes};
    vkCmdCopyBuffer(r.readback_cmd, rb.src->buffer, readback_->buffer, 1, &region);
  }
  mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(r.readback_cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                       0, 1, &mb, 0, nullptr, 0, nullptr);
  check(vkEndCommandBuffer(r.readback_cmd), "vkEndCommandBuffer");
  r.readbacks_recorded = true;
}

void VulkanDevice::compute(const zen_graph& g) {
  wait_pending();
  // A recording that bound a since-replaced scratch buffer ran once; it goes with the buffer.
  std::erase_if(recordings_, [&](std::unique_ptr<Recording>& r) {
    if (!r->one_shot) return false;
    drop_recording(*r);
    return true;
  });
  free_retired();
  signature(g, sig_);
  Recording* r = nullptr;
  for (auto& x : recordings_)
    if (x->signature == sig_) r = x.get();
  if (r)
    ++counters_.replays;
  else
    r = &record_graph(g, std::move(sig_));
  staged_.clear();  // the command buffer copies them
  r->last_used = ++runs_;
  last_run_ = r;
  after_run_ = true;
  readback_valid_ = false;
  if (r->dispatches == 0 && !r->copies) return;
  if (!r->readbacks.empty() && !r->readbacks_recorded) record_readbacks(*r);
  if (r->readbacks.empty())
    submit({r->cmd}, fence_);
  else
    submit({r->cmd, r->readback_cmd}, fence_);
  pending_ = true;
  readback_valid_ = !r->readbacks.empty();
  counters_.dispatches += r->dispatches;
  counters_.barriers += r->barriers;
}

}  // namespace zen_vk
