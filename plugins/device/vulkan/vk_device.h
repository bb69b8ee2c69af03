// One opened Vulkan device: device-local buffers filled and read through host-visible memory
// and copy commands (also where the memory is host-visible, as on lavapipe, so the path real
// GPUs take is the one exercised), and compute(): the scheduler's subgraph recorded into one
// command buffer, submitted with a fence that synchronize() waits on. Shapes and strides go in
// push constants. Pipelines are created on first use through a VkPipelineCache saved under
// $XDG_CACHE_HOME/zen-engine/vulkan/ (pipeline_cache.h).
//
// A decode step costs one submit and one wait (docs/VULKAN-DEVICE.md, "A decode step"):
//  - small uploads (a step's token ids, positions, mask) are staged in a ring and copied by the
//    next compute's own command buffer, not submitted one by one;
//  - a graph's command buffer (with its descriptor sets and those copies) is kept, keyed by
//    everything recording reads (Signature); the same graph again is a replay: nothing is
//    recorded, allocated or written to descriptors;
//  - what the host downloads after a recording's run (the logits) is learned, and the next runs
//    copy it into host-visible memory in the same submit, so download() is a memcpy;
//  - a barrier separates two dispatches only when the second touches what the first wrote (or
//    writes what it read), not after every dispatch.
//
// Thread safety: one host thread at a time per device (as the CPU device).
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <zen/device_counters.h>
#include <zen/device.hpp>

#include "shaders.h"
#include "vk_instance.h"
#include "vk_profile.h"

namespace zen_vk {

// What a zen_buffer* points to inside this plugin.
struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  uint64_t size = 0;
};

// A tensor as a shader sees it: the buffer range bound to one binding, and the byte offset of
// the tensor's first element inside that range (the `off_*` push constants).
// [lo, hi) are the bytes of the buffer the dispatch really touches (barrier tracking; lo == hi:
// untracked, as the status buffer, whose atomics need no ordering).
struct Binding {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0, range = VK_WHOLE_SIZE;
  uint32_t residual = 0;
  uint64_t lo = 0, hi = 0;
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
  const zen_device_counters* counters() const override { return &counters_; }

  // ---- used by the op recorders (vk_ops.cpp) ----
  const PhysicalDevice& physical() const { return pd_; }
  // Rows per workgroup of the subgroup matrix-vector kernel (matvec.comp), 0 where the
  // row-per-invocation kernel serves decode too: on GPUs with subgroup arithmetic and shuffles
  // in compute and a subgroup size of 8 to 64. ZEN_VULKAN_MATVEC=subgroup uses it on any such
  // device (software ones: tests), =rows on none.
  uint32_t matvec_rows() const { return matvec_rows_; }
  // Whether prefill's quantized matmuls take the 64 x 64 shared-memory tile kernel
  // (matmul_tiled.comp): on GPUs with 256-invocation workgroups. ZEN_VULKAN_GEMM=tiled uses
  // it on any such device (software ones: tests), =rows on none.
  bool tiled_gemm() const { return tiled_gemm_; }
  // Attention (vk_ops.cpp, rec_attention): whether attention_sg.comp (a subgroup per group of
  // up to 4 query heads, lanes across the head dimension) serves instead of attention.comp:
  // on GPUs with subgroup arithmetic in compute and a subgroup size of 8 to 64; and how its
  // keys are split (split-K). ZEN_VULKAN_ATTENTION=plain (attention.comp only), =subgroup
  // (attention_sg.comp, never split), =split (attention_sg.comp, always split into small
  // parts) force a path on any device that can take it (software ones: tests; GPUs: A/B).
  enum class AttentionSplit { kAuto, kNever, kAlways };
  bool attention_subgroup() const { return attention_sg_; }
  AttentionSplit attention_split() const { return attention_split_; }
  // Compute units for sizing work (split-K): SMs where the driver tells, a CPU
  // implementation's hardware threads, else 0 (unknown).
  uint32_t compute_units() const { return compute_units_; }
  uint64_t max_range() const { return max_range_; }
  // Binding for the bytes [t.offset + rel, + extent) of t's buffer; throws when the range is
  // larger than the device can bind at once.
  Binding bind(const zen_tensor& t, uint64_t extent, uint64_t rel = 0) const;
  // Records one dispatch of `groups` workgroups (any count: a 2D grid past 65535), preceded by
  // a barrier when it depends on a dispatch since the last one (which bindings each shader
  // writes: writes_of() in vk_device.cpp). Missing bindings get a placeholder buffer.
  // The status buffer shaders report bad row ids in (checked by synchronize()).
  Binding status_binding() const { return {status_->buffer, 0, 16, 0, 0, 0}; }
  void dispatch(Shader s, std::initializer_list<Binding> binds, const void* push, size_t bytes,
                uint64_t groups);
  // A device-local scratch range of at least `bytes` for the graph being recorded (the
  // quantized activations of a matmul). Every call returns the same buffer while it is big
  // enough (the barrier tracking orders its users). Growing retires the old buffer until the
  // graph that may still use it has finished, and drops the recordings that bind it.
  Binding scratch(uint64_t bytes);
  // The scratch holding a matmul's activations quantized (quantize_act.comp), and whether it
  // already holds them: true when the last quantization recorded was of the same activations
  // (`key`: the source's range, strides and shape, the block format) and nothing recorded
  // since wrote them, so the caller skips the quantize dispatch (q/k/v and gate/up share
  // their input). remember_quantized() records what the caller's dispatch put there.
  std::pair<Binding, bool> quantized_scratch(const std::vector<uint64_t>& key, uint64_t bytes);
  void remember_quantized(const Binding& src, std::vector<uint64_t> key);

 private:
  // An upload waiting in the ring for the next command buffer (or flush_uploads()).
  struct StagedCopy {
    Buffer* dst = nullptr;
    uint64_t dst_offset = 0, ring_offset = 0, bytes = 0;
  };
  // A range the host downloaded after a recording's run: copied to `readback_` at `at`.
  struct Readback {
    Buffer* src = nullptr;
    uint64_t offset = 0, bytes = 0, at = 0;
  };
  struct Range {
    VkBuffer buffer;
    uint64_t lo, hi;
  };
  // One recorded graph: replayed while the signature (the graph as recording reads it and the
  // staged copies) is the same.
  struct Recording {
    std::vector<uint64_t> signature;
    VkCommandBuffer cmd = VK_NULL_HANDLE, readback_cmd = VK_NULL_HANDLE;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    uint32_t dispatches = 0, barriers = 0, descriptor_writes = 0;
    std::vector<Readback> readbacks;
    bool readbacks_recorded = false;
    bool copies = false;    // starts with staged uploads
    bool one_shot = false;  // binds a scratch buffer replaced since: not replayed
    uint64_t last_used = 0;
    Profiler::Marks marks;  // ZEN_VULKAN_PROFILE: its timestamps
  };

  void destroy();
  void wait_pending();
  void free_retired();
  void ensure_staging();
  void run_transfer(const std::function<void(VkCommandBuffer)>& record);
  // Submits `cmds` to the queue in one vkQueueSubmit, signalling `fence` (reset first).
  void submit(std::initializer_list<VkCommandBuffer> cmds, VkFence fence);
  void wait(VkFence fence);
  // Uploads staged in the ring, copied now (one submit and wait) for a reader outside a graph.
  void flush_uploads();
  void record_copies(VkCommandBuffer cmd, const std::vector<StagedCopy>& copies);
  void signature(const zen_graph& g, std::vector<uint64_t>& out) const;
  Recording& record_graph(const zen_graph& g, std::vector<uint64_t>&& sig);
  void ensure_readback(uint64_t bytes);
  VkCommandBuffer new_command_buffer();  // a primary one from cmd_pool_
  void record_readbacks(Recording& r);
  void drop_recording(Recording& r);
  void drop_recordings(const Recording* keep);
  // Serves a download from the last run's readback copies; false when they do not hold it.
  bool read_back(const Buffer& b, uint64_t off, void* dst, uint64_t bytes);
  void learn_readback(Buffer& b, uint64_t off, uint64_t bytes);
  VkPipeline pipeline(Shader s);
  uint32_t memory_type(uint32_t bits, VkMemoryPropertyFlags want) const;
  Buffer* make_buffer(uint64_t bytes, VkBufferUsageFlags usage, VkMemoryPropertyFlags props);
  void destroy_buffer(Buffer* b);

  std::shared_ptr<Instance> inst_;
  PhysicalDevice pd_;
  VkPhysicalDeviceMemoryProperties mem_{};
  uint64_t max_range_ = 0, offset_align_ = 16, max_alloc_ = 0;
  uint32_t matvec_rows_ = 0;
  bool tiled_gemm_ = false;
  bool attention_sg_ = false;
  AttentionSplit attention_split_ = AttentionSplit::kAuto;
  uint32_t compute_units_ = 0;
  VkDevice dev_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool cmd_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer xfer_cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE, xfer_fence_ = VK_NULL_HANDLE;
  bool pending_ = false;  // a compute submit whose fence has not been waited
  zen_device_counters counters_{};
  std::unique_ptr<Profiler> profiler_;  // null unless ZEN_VULKAN_PROFILE

  // The recording being made (dispatch() appends to it) and the ranges dispatched since its
  // last barrier.
  Recording* rec_ = nullptr;
  std::vector<Range> written_, read_;
  std::vector<std::unique_ptr<Recording>> recordings_;
  uint64_t runs_ = 0;
  Recording* last_run_ = nullptr;  // whose readbacks the readback buffer holds, once waited
  bool readback_valid_ = false;    // the readback buffer holds last_run_'s readbacks
  bool after_run_ = false;         // nothing uploaded since last_run_: a download is its output
  std::vector<uint64_t> sig_;      // reused: the signature of the graph being computed

  Buffer* ring_ = nullptr;  // host-visible: uploads staged for the next command buffer
  void* ring_map_ = nullptr;
  uint64_t ring_used_ = 0;
  std::vector<StagedCopy> staged_;
  Buffer* readback_ = nullptr;  // host-visible: learned downloads, copied at the end of a run
  void* readback_map_ = nullptr;

  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipelineCache cache_ = VK_NULL_HANDLE;
  std::array<VkShaderModule, static_cast<size_t>(Shader::kCount)> modules_{};
  std::array<VkPipeline, static_cast<size_t>(Shader::kCount)> pipelines_{};

  Buffer* staging_ = nullptr;  // host-visible, coherent, persistently mapped
  void* staging_map_ = nullptr;
  Buffer* status_ = nullptr;  // host-visible: what, id, limit of the first bad row id
  uint32_t* status_map_ = nullptr;
  Buffer* placeholder_ = nullptr;  // bound to the bindings a dispatch does not use
  Buffer* scratch_ = nullptr;
  std::vector<uint64_t> quant_key_;  // what the scratch holds, as recorded so far ({}: unknown)
  Range quant_src_{};
  std::vector<Buffer*> retired_;  // scratch buffers the recorded graph may still use
};

}  // namespace zen_vk
