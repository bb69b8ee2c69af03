#include "cpu_device.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "kernels.h"

namespace ZEN_CPU_NS {
namespace {

constexpr uint64_t kAlign = 64;

// What a zen_buffer* points to inside this plugin.
struct Buffer {
  void* ptr;
  uint64_t size;
  bool owned;  // false for wrapped host memory (an mmapped file): never freed here
};

Buffer& buffer(zen_buffer* b) {
  if (!b) throw zen::Error(ZEN_ERR_INVALID_ARG, "cpu: NULL buffer");
  return *reinterpret_cast<Buffer*>(b);
}

void check_range(const Buffer& b, uint64_t off, uint64_t bytes, const char* what) {
  if (off > b.size || bytes > b.size - off)
    throw zen::Error(ZEN_ERR_INVALID_ARG, std::string("cpu: ") + what + " of " +
                                              std::to_string(bytes) + " bytes at " +
                                              std::to_string(off) + " runs past a " +
                                              std::to_string(b.size) + "-byte buffer");
}

// A tensor's first element: data when the host set it, else its buffer plus offset.
char* address(const zen_tensor& t) {
  if (t.data) return static_cast<char*>(t.data);
  if (t.buffer) return static_cast<char*>(buffer(t.buffer).ptr) + t.offset;
  throw zen::Error(ZEN_ERR_INVALID_ARG,
                   std::string("cpu: tensor '") + (t.name ? t.name : "") + "' has no memory");
}

uint64_t sysconf_bytes(int name) {
  long pages = sysconf(name), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

}  // namespace

void CpuDevice::fill_props(zen_device_props& p) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::snprintf(p.name, sizeof p.name, "cpu");
  std::snprintf(p.description, sizeof p.description,
                "CPU, %s build, %u hardware threads (reference kernels on 1 thread for now)",
                ZEN_CPU_VARIANT, threads);
  p.type = ZEN_DEVICE_CPU;
  p.memory_total = sysconf_bytes(_SC_PHYS_PAGES);
  p.memory_free = sysconf_bytes(_SC_AVPHYS_PAGES);
  p.priority = 100;
  p.host_visible = 1;
  p.compute_units = threads;
}

bool CpuDevice::supports_op(const zen_graph& g, int32_t node) {
  return find_kernel(g, node) != nullptr;
}

zen_buffer* CpuDevice::alloc(uint64_t bytes) {
  const uint64_t rounded = (std::max<uint64_t>(bytes, 1) + kAlign - 1) / kAlign * kAlign;
  void* p = std::aligned_alloc(kAlign, rounded);
  if (!p)
    throw zen::Error(ZEN_ERR_OUT_OF_MEMORY,
                     "cpu: cannot allocate " + std::to_string(bytes) + " bytes");
  return reinterpret_cast<zen_buffer*>(new Buffer{p, bytes, true});
}

zen_buffer* CpuDevice::wrap_host(void* ptr, uint64_t bytes) {
  if (!ptr) throw zen::Error(ZEN_ERR_INVALID_ARG, "cpu: cannot wrap a NULL pointer");
  return reinterpret_cast<zen_buffer*>(new Buffer{ptr, bytes, false});
}

void CpuDevice::free(zen_buffer* b) {
  if (!b) return;
  Buffer* buf = reinterpret_cast<Buffer*>(b);
  if (buf->owned) std::free(buf->ptr);
  delete buf;
}

void* CpuDevice::host_ptr(zen_buffer* b) { return b ? buffer(b).ptr : nullptr; }

void CpuDevice::upload(zen_buffer* b, uint64_t off, const void* src, uint64_t bytes) {
  Buffer& buf = buffer(b);
  check_range(buf, off, bytes, "upload");
  std::memcpy(static_cast<char*>(buf.ptr) + off, src, bytes);
}

void CpuDevice::download(zen_buffer* b, uint64_t off, void* dst, uint64_t bytes) {
  Buffer& buf = buffer(b);
  check_range(buf, off, bytes, "download");
  std::memcpy(dst, static_cast<const char*>(buf.ptr) + off, bytes);
}

void CpuDevice::compute(const zen_graph& g) {
  for (uint32_t n = 0; n < g.n_nodes; ++n) {
    const int32_t node = g.nodes[n];
    const KernelEntry* k = find_kernel(g, node);
    if (!k)
      throw zen::Error(ZEN_ERR_UNSUPPORTED,
                       "cpu: no kernel for node " + std::to_string(node) + " (op " +
                           std::to_string(zen_graph_tensor(&g, node)->op) + ")");
    const zen_tensor& t = *zen_graph_tensor(&g, node);
    if (t.op == ZEN_OP_NONE || t.op == ZEN_OP_VIEW) continue;
    KernelArgs args{&t, address(t), {}, {}};
    for (int i = 0; i < ZEN_MAX_SRC; ++i) {
      if (t.src[i] < 0) continue;
      args.src[i] = zen_graph_tensor(&g, t.src[i]);
      args.s[i] = address(*args.src[i]);
    }
    if (k->work_size) {
      args.work_size = k->work_size(t, args.src, 1);
      if (work_.size() < args.work_size + 64) work_.resize(args.work_size + 64);
      args.work = work_.data() + (64 - reinterpret_cast<uintptr_t>(work_.data()) % 64) % 64;
    }
    k->fn(args, 0, 1);
  }
}

void sync_threads(const KernelArgs& a) {
  // One thread until the pool lands: nothing to wait for.
  (void)a;
}

}  // namespace ZEN_CPU_NS
