#include "cpu_device.h"

#include <sys/mman.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include <zen/fusion.hpp>
#include <zen/plugin.hpp>

#include "affinity.h"
#include "kernels.h"

namespace ZEN_CPU_NS {
namespace {

constexpr uint64_t kAlign = 64;
constexpr uint64_t kHugePage = 2u << 20;
constexpr uint64_t kHugeBuffer = 32u << 20;

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

unsigned CpuDevice::configured_threads() {
  if (const char* v = zen::Host::config("cpu.threads")) {
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (end != v && n > 0) return static_cast<unsigned>(std::min(n, 4096L));
  }
  return std::max(1u, default_thread_count());
}

namespace {
bool pinning_wanted() {
  const char* v = zen::Host::config("cpu.pinning");
  return !(v && std::string(v) == "none");
}
}  // namespace

CpuDevice::CpuDevice() {
  const char* repack = zen::Host::config("cpu.repack");
  repack_ = !(repack && std::string(repack) == "false");
  const unsigned n = configured_threads();
  pool_ = std::make_unique<ThreadPool>(
      static_cast<int>(n), pinning_wanted() ? pinning_plan_for(n) : std::vector<unsigned>{});
}

void CpuDevice::fill_props(zen_device_props& p) {
  const unsigned threads = configured_threads();
  std::snprintf(p.name, sizeof p.name, "cpu");
  std::snprintf(p.description, sizeof p.description, "CPU, %s build, %u threads%s", ZEN_CPU_VARIANT,
                threads, pinning_wanted() ? " pinned to cores" : "");
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
  // Large buffers (a KV cache) on huge pages: a paged cache's attention reads each sequence's
  // 4 KiB blocks of one head in turn, every one a new 4 KiB page, and waited on the page walks.
  const uint64_t align = bytes >= kHugeBuffer ? kHugePage : kAlign;
  const uint64_t rounded = (std::max<uint64_t>(bytes, 1) + align - 1) / align * align;
  void* p = std::aligned_alloc(align, rounded);
  if (p && align == kHugePage) madvise(p, rounded, MADV_HUGEPAGE);  // a hint
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

// The node after position n computed by n's kernel in the same pass (zen/fusion.hpp): a
// norm and its weight's MUL, a matmul and its residual ADD. Saves the barrier and the pass
// between them; results are bit-identical. Advances n past the fused node.
void CpuDevice::fuse_next(const zen_graph& g, uint32_t& n, const KernelEntry& k,
                          KernelArgs& args) const {
  const zen_tensor *second = nullptr, *extra = nullptr;
  if (fuses_mul(k.fn)) {
    if (const auto m = zen::fusion::norm_mul(g, n)) {
      second = m->mul;
      extra = m->w;
    }
  } else if (fuses_add(k.fn)) {
    if (const auto m = zen::fusion::matmul_add(g, n)) {
      second = m->add;
      extra = m->res;
    }
  }
  if (!second || !find_kernel(g, g.nodes[n + 1])) return;
  args.fused = second;
  args.fd = address(*second);
  args.fused_src = extra;
  args.fs = address(*extra);
  ++n;
}

void CpuDevice::compute(const zen_graph& g) {
  const int nth = pool_->size();
  steps_.clear();
  uint64_t work = 0;
  for (uint32_t n = 0; n < g.n_nodes; ++n) {
    const int32_t node = g.nodes[n];
    const KernelEntry* k = find_kernel(g, node);
    if (!k)
      throw zen::Error(ZEN_ERR_UNSUPPORTED,
                       "cpu: no kernel for node " + std::to_string(node) + " (op " +
                           std::to_string(zen_graph_tensor(&g, node)->op) + ")");
    const zen_tensor& t = *zen_graph_tensor(&g, node);
    if (t.op == ZEN_OP_NONE || t.op == ZEN_OP_VIEW) continue;
    Step st{k->fn, KernelArgs{&t, address(t), {}, {}}};
    for (int i = 0; i < ZEN_MAX_SRC; ++i) {
      if (t.src[i] < 0) continue;
      st.args.src[i] = zen_graph_tensor(&g, t.src[i]);
      st.args.s[i] = address(*st.args.src[i]);
    }
    if (k->work_size) {
      st.args.work_size = k->work_size(t, st.args.src, nth);
      work = std::max(work, st.args.work_size);
    }
    st.args.barrier = nth > 1 ? &pool_->barrier() : nullptr;
    if (repack_ && packs_weights(k->fn) && (st.args.src[0]->flags & ZEN_TENSOR_WEIGHT))
      st.args.packed = packed_.find(*st.args.src[0], st.args.s[0]);
    fuse_next(g, n, *k, st.args);
    steps_.push_back(st);
  }
  if (steps_.empty()) return;
  if (nth > 1) {
    if (cursors_.size() < steps_.size())  // a new vector: atomics do not move
      cursors_ = std::vector<std::atomic<int64_t>>(steps_.size());
    for (size_t i = 0; i < steps_.size(); ++i) {
      cursors_[i].store(0, std::memory_order_relaxed);
      steps_[i].args.cursor = &cursors_[i];
    }
  }
  // One scratch buffer for the whole graph, shared by every thread; nodes run one after the
  // other (a barrier between them), so they can all use it.
  if (work > 0) {
    if (work_.size() < work + 64) work_.resize(work + 64);
    void* base = work_.data() + (64 - reinterpret_cast<uintptr_t>(work_.data()) % 64) % 64;
    for (Step& st : steps_)
      if (st.args.work_size) st.args.work = base;
  }
  if (nth == 1) {
    for (const Step& st : steps_) st.fn(st.args, 0, 1);
    return;
  }
  try {
    pool_->run(&CpuDevice::run_steps, this);
  } catch (const zen::Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    throw zen::Error(ZEN_ERR_INTERNAL, std::string("cpu: kernel failed: ") + e.what());
  } catch (...) {
    throw zen::Error(ZEN_ERR_INTERNAL, "cpu: kernel failed with an unknown exception");
  }
}

// Every thread's share of the graph: each node, then a barrier so the next node sees its
// inputs complete.
void CpuDevice::run_steps(void* self, int ith) {
  const CpuDevice& d = *static_cast<const CpuDevice*>(self);
  const int nth = d.pool_->size();
  for (const Step& st : d.steps_) {
    st.fn(st.args, ith, nth);
    if (&st != &d.steps_.back()) d.pool_->barrier().wait();
  }
}

void sync_threads(const KernelArgs& a) {
  if (a.barrier) a.barrier->wait();
}

}  // namespace ZEN_CPU_NS
