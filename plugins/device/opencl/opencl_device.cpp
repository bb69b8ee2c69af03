#include "opencl_device.h"

#include <cstring>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <zen/plugin.hpp>

#include "kernel_sources.h"
#include "ops.h"
#include "program_cache.h"

namespace zen_opencl {
namespace {

Buffer& buffer(zen_buffer* b) {
  if (!b) throw zen::Error(ZEN_ERR_INVALID_ARG, "opencl: NULL buffer");
  return *reinterpret_cast<Buffer*>(b);
}

void check_range(const Buffer& b, uint64_t off, uint64_t bytes, const char* what) {
  if (off > b.size || bytes > b.size - off)
    throw zen::Error(ZEN_ERR_INVALID_ARG, std::string("opencl: ") + what + " of " +
                                              std::to_string(bytes) + " bytes at " +
                                              std::to_string(off) + " runs past a " +
                                              std::to_string(b.size) + "-byte buffer");
}

std::string program_source() {
  std::string s;
  for (unsigned i = 0; i < kKernelSourceCount; ++i) {
    s += "// ---- ";
    s += kKernelSources[i].name;
    s += "\n";
    s += kKernelSources[i].text;
  }
  return s;
}

// Whether quantized MATMULs with one column take k_matvec_q8: on GPUs (NVIDIA's OpenCL has
// no sub-group extension: the local-memory reduction serves; one item per row left an H100 at
// 5 GB/s) and where the program has sub-group functions, unless ZEN_OPENCL_MATVEC says
// otherwise ("1": on, "0": off).
bool use_matvec(bool with_subgroups, bool gpu) {
  const char* v = std::getenv("ZEN_OPENCL_MATVEC");
  if (v && *v) return std::string_view(v) != "0";
  return with_subgroups || gpu;
}

// The fewest columns a quantized MATMUL needs to take the tiled k_gemm_q8: 9 on GPUs (up to 8,
// a few sequences' decode step, k_matvec_q8 spreads each output over a work-group instead),
// never on CPU devices (PoCL runs the row kernel faster), unless ZEN_OPENCL_GEMM says otherwise
// ("1": from two columns, so the tests run it on every multi-column case; "0": never).
int64_t gemm_min_columns(bool gpu) {
  const char* v = std::getenv("ZEN_OPENCL_GEMM");
  if (v && *v) return std::string_view(v) != "0" ? 2 : 0;
  return gpu ? 9 : 0;
}

// The fewest queries an ATTENTION needs to take k_attention_tiled: 8 on GPUs, never on CPU
// devices, unless ZEN_OPENCL_ATTENTION says otherwise ("tiled": from two queries, for the
// tests; "rows": never).
int64_t attention_min_queries(bool gpu) {
  const char* v = std::getenv("ZEN_OPENCL_ATTENTION");
  if (v && *v) return std::string_view(v) == "tiled" ? 2 : 0;
  return gpu ? 8 : 0;
}

// ZEN_OPENCL_FUSE=0: every node its own launch (the fused kernels are checked against that).
bool fuse_nodes() {
  const char* v = std::getenv("ZEN_OPENCL_FUSE");
  return !(v && std::string_view(v) == "0");
}

}  // namespace

cl_mem counted_buffer(cl_context ctx, zen_device_counters& c, cl_mem_flags flags, uint64_t bytes,
                      void* host, cl_int* err) {
  cl_mem m = clCreateBuffer(ctx, flags, bytes, host, err);
  if (*err != CL_SUCCESS) return nullptr;
  ++c.allocations;
  c.allocated_bytes += bytes;
  return m;
}

void release_counted(zen_device_counters& c, cl_mem m) {
  if (!m) return;
  size_t size = 0;
  if (clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size, &size, nullptr) == CL_SUCCESS)
    c.allocated_bytes -= std::min<uint64_t>(size, c.allocated_bytes);
  clReleaseMemObject(m);  // OpenCL keeps it alive until the kernels enqueued on it finish
}

Scratch::~Scratch() { release_counted(*counters_, mem_); }

cl_mem Scratch::get(uint64_t bytes) {
  if (mem_ && size_ >= bytes) return mem_;
  release_counted(*counters_, mem_);  // freed by OpenCL once its enqueued users finish
  mem_ = nullptr;
  size_ = 0;
  // Grow by half again so a prompt that lengthens step by step does not reallocate every step.
  const uint64_t want = std::max<uint64_t>(bytes + bytes / 2, 4096);
  cl_int err = CL_SUCCESS;
  cl_mem m = counted_buffer(ctx_, *counters_, CL_MEM_READ_WRITE, want, nullptr, &err);
  if (err != CL_SUCCESS)
    throw zen::Error(ZEN_ERR_OUT_OF_MEMORY, cl_failure("clCreateBuffer", err) + " for a " +
                                                std::to_string(want) + "-byte matmul scratch");
  mem_ = m;
  size_ = want;
  return mem_;
}

OpenClDevice::OpenClDevice(const DeviceEntry& e) : device_(e.device) {
  try {
    cl_int err = CL_SUCCESS;
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                           reinterpret_cast<cl_context_properties>(e.platform), 0};
    ctx_ = clCreateContext(props, 1, &device_, nullptr, nullptr, &err);
    cl_check(err, "clCreateContext");
    profile_ = LaunchProfile::from_env();
    // In order; with profiling only under ZEN_OPENCL_PROFILE.
    queue_ = clCreateCommandQueue(ctx_, device_, profile_ ? CL_QUEUE_PROFILING_ENABLE : 0, &err);
    cl_check(err, "clCreateCommandQueue");
    dummy_ = counted_buffer(ctx_, counters_, CL_MEM_READ_WRITE, 64, nullptr, &err);
    cl_check(err, "clCreateBuffer");
    const cl_int zero = 0;
    errors_ = counted_buffer(ctx_, counters_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero,
                             const_cast<cl_int*>(&zero), &err);
    cl_check(err, "clCreateBuffer");
    scratch_ = std::make_unique<Scratch>(ctx_, &counters_);
    // Angles of rope want double precision where the device has it (kernels/50_rope.cl).
    // Correctly rounded division: the activation quantizer's 127 / amax must be the CPU's float
    // (kernels/75_matmul_q8.cl).
    std::string options = "-cl-std=CL1.2 -cl-fp32-correctly-rounded-divide-sqrt";
    if (device_has_extension(device_, "cl_khr_fp64")) options += " -DZEN_FP64";
    const bool subgroups = device_has_extension(device_, "cl_khr_subgroups") ||
                           device_has_extension(device_, "cl_intel_subgroups");
    BuiltProgram built;
    bool with_subgroups = false;
    if (subgroups) {
      // A driver that lists the extension but does not take its functions in OpenCL C 1.2
      // gets the program without them (and the matrix-vector kernel off) instead of no device.
      try {
        built = build_program(ctx_, e.platform, device_, program_source(),
                              options + " -DZEN_SUBGROUPS");
        with_subgroups = true;
      } catch (const zen::Error& err) {
        zen::Host::log(ZEN_LOG_WARN, "opencl",
                       std::string("program with sub-group functions did not build, building "
                                   "without: ") +
                           err.what());
      }
    }
    if (!built.program) built = build_program(ctx_, e.platform, device_, program_source(), options);
    program_ = built.program;
    cl_device_type type = 0;
    clGetDeviceInfo(device_, CL_DEVICE_TYPE, sizeof type, &type, nullptr);
    matvec_ = use_matvec(with_subgroups, (type & CL_DEVICE_TYPE_GPU) != 0);
    gemm_min_columns_ = gemm_min_columns((type & CL_DEVICE_TYPE_GPU) != 0);
    attention_min_queries_ = attention_min_queries((type & CL_DEVICE_TYPE_GPU) != 0);
    fuse_ = fuse_nodes();
    zen::Host::log(ZEN_LOG_DEBUG, "opencl",
                   std::string("decode matrix-vector kernel (k_matvec_q8) ") +
                       (matvec_ ? "on" : "off") + ", sub-group functions " +
                       (with_subgroups ? "in the program" : "not available"));
    zen::Host::log(ZEN_LOG_DEBUG, "opencl",
                   std::string(built.from_cache ? "program loaded from the binary cache "
                                                : "program built from source ") +
                       (built.cache_file.empty() ? "(no cache directory)" : built.cache_file) +
                       " in " + std::to_string(static_cast<long>(built.millis)) + " ms");
    cl_uint n = 0;
    cl_check(clCreateKernelsInProgram(program_, 0, nullptr, &n), "clCreateKernelsInProgram");
    std::vector<cl_kernel> ks(n);
    cl_check(clCreateKernelsInProgram(program_, n, ks.data(), nullptr), "clCreateKernelsInProgram");
    for (cl_kernel k : ks) {
      char name[128] = {};
      clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name - 1, name, nullptr);
      kernels_[name].kernel = k;
    }
  } catch (...) {
    release();  // the destructor does not run for a constructor that throws
    throw;
  }
}

OpenClDevice::~OpenClDevice() { release(); }

void OpenClDevice::release() {
  if (queue_) clFinish(queue_);
  profile_.reset();  // prints its report
  for (auto& [name, k] : kernels_) clReleaseKernel(k.kernel);
  kernels_.clear();
  scratch_.reset();
  if (program_) clReleaseProgram(program_);
  release_counted(counters_, dummy_);
  release_counted(counters_, errors_);
  if (queue_) clReleaseCommandQueue(queue_);
  if (ctx_) clReleaseContext(ctx_);
  program_ = nullptr;
  dummy_ = nullptr;
  errors_ = nullptr;
  queue_ = nullptr;
  ctx_ = nullptr;
}

bool OpenClDevice::supports_op(const zen_graph& g, int32_t node) { return op_supported(g, node); }

zen_buffer* OpenClDevice::alloc(uint64_t bytes) {
  cl_int err = CL_SUCCESS;
  // A zero-byte buffer is invalid in OpenCL; every buffer gets at least one word.
  cl_mem m = counted_buffer(ctx_, counters_, CL_MEM_READ_WRITE, std::max<uint64_t>(bytes, 4),
                            nullptr, &err);
  if (err != CL_SUCCESS)
    throw zen::Error(ZEN_ERR_OUT_OF_MEMORY, cl_failure("clCreateBuffer", err) + " for " +
                                                std::to_string(bytes) + " bytes");
  return reinterpret_cast<zen_buffer*>(new Buffer{m, bytes});
}

void OpenClDevice::free(zen_buffer* b) {
  if (!b) return;
  Buffer* buf = reinterpret_cast<Buffer*>(b);
  for (auto& [graph, list] : readbacks_)
    std::erase_if(list, [&](const Readback& r) { return r.mem == buf->mem; });
  release_counted(counters_, buf->mem);
  delete buf;
}

void OpenClDevice::upload(zen_buffer* b, uint64_t off, const void* src, uint64_t bytes) {
  Buffer& buf = buffer(b);
  check_range(buf, off, bytes, "upload");
  if (bytes == 0) return;
  counters_.upload_bytes += bytes;
  after_run_ = false;
  readbacks_ready_ = false;
  if (bytes <= (1u << 20)) {  // a step's input: rides with the next compute()'s flush
    const auto* p = static_cast<const unsigned char*>(src);
    staged_.emplace_back(p, p + bytes);
    cl_check(clEnqueueWriteBuffer(queue_, buf.mem, CL_FALSE, off, bytes, staged_.back().data(), 0,
                                  nullptr, nullptr),
             "clEnqueueWriteBuffer");
    return;
  }
  blocking(clEnqueueWriteBuffer(queue_, buf.mem, CL_TRUE, off, bytes, src, 0, nullptr, nullptr),
           "clEnqueueWriteBuffer");
  staged_.clear();  // the blocking write waited for the staged ones before it
}

void OpenClDevice::download(zen_buffer* b, uint64_t off, void* dst, uint64_t bytes) {
  Buffer& buf = buffer(b);
  check_range(buf, off, bytes, "download");
  if (bytes == 0) return;
  counters_.download_bytes += bytes;
  if (readbacks_ready_)
    for (const Readback& r : readbacks_[last_run_])
      if (r.mem == buf.mem && off >= r.offset && off + bytes <= r.offset + r.bytes) {
        std::memcpy(dst, r.host.data() + (off - r.offset), bytes);
        return;
      }
  blocking(clEnqueueReadBuffer(queue_, buf.mem, CL_TRUE, off, bytes, dst, 0, nullptr, nullptr),
           "clEnqueueReadBuffer");
  staged_.clear();
  // Learn it: the next runs of this graph read it back behind their kernels.
  if (after_run_ && bytes <= (16u << 20)) {
    if (readbacks_.size() >= 8 && !readbacks_.count(last_run_)) readbacks_.clear();
    readbacks_[last_run_].push_back({buf.mem, off, bytes, std::vector<unsigned char>(bytes)});
    readbacks_ready_ = false;  // the new one holds nothing until a run reads it back
  }
}

// What identifies a graph for its learned readbacks: its nodes' ops, shapes and places (a
// collision costs only a useless read: a readback serves a download only of the very range it
// copied after the run that just finished).
uint64_t OpenClDevice::graph_key(const zen_graph& g) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
  mix(g.n_nodes);
  for (uint32_t n = 0; n < g.n_nodes; ++n) {
    const zen_tensor& t = *zen_graph_tensor(&g, g.nodes[n]);
    mix(t.op);
    for (int d = 0; d < ZEN_MAX_DIMS; ++d) mix(static_cast<uint64_t>(t.ne[d]));
    mix(reinterpret_cast<uintptr_t>(t.buffer));
    mix(t.offset);
  }
  return h;
}

void OpenClDevice::compute(const zen_graph& g) {
  const auto started = std::chrono::steady_clock::now();
  const LaunchContext c{
      queue_,  &kernels_,      dummy_, errors_,           scratch_.get(),         &counters_,
      matvec_, profile_.get(), &memo_, gemm_min_columns_, attention_min_queries_, fuse_};
  memo_ = {};  // uploads since the last graph may have rewritten its rows
  for (uint32_t pos = 0; pos < g.n_nodes;) pos += enqueue_nodes(c, g, pos);
  if (profile_) profile_->enqueued_graph(std::chrono::steady_clock::now() - started);
  last_run_ = graph_key(g);
  after_run_ = true;
  readbacks_ready_ = false;
  auto learned = readbacks_.find(last_run_);
  if (learned != readbacks_.end())
    for (Readback& r : learned->second)
      cl_check(clEnqueueReadBuffer(queue_, r.mem, CL_FALSE, r.offset, r.bytes, r.host.data(), 0,
                                   nullptr, nullptr),
               "clEnqueueReadBuffer");
  // The kernels' error flag comes back with them; synchronize() only waits.
  cl_check(clEnqueueReadBuffer(queue_, errors_, CL_FALSE, 0, sizeof error_flag_, &error_flag_, 0,
                               nullptr, nullptr),
           "clEnqueueReadBuffer");
  flag_pending_ = true;
  // Submit now so the device starts while the host prepares the next step.
  cl_check(clFlush(queue_), "clFlush");
  ++counters_.submits;
}

// Waits for the queue, then reports what a kernel flagged (the flag is cleared for the next
// graph): the blocking read is ordered after every kernel enqueued so far.
void OpenClDevice::synchronize() {
  cl_check(clFinish(queue_), "clFinish");
  ++counters_.host_waits;
  if (profile_) profile_->collect();
  staged_.clear();  // the queue has read them
  readbacks_ready_ = after_run_;
  if (!flag_pending_) return;
  flag_pending_ = false;
  if (error_flag_ == 0) return;
  const cl_int zero = 0;
  blocking(
      clEnqueueWriteBuffer(queue_, errors_, CL_TRUE, 0, sizeof zero, &zero, 0, nullptr, nullptr),
      "clEnqueueWriteBuffer");
  throw zen::Error(ZEN_ERR_INVALID_ARG,
                   "opencl: get_rows/set_rows: a row id is outside the table (rows with a bad id "
                   "were not read or written)");
}

void OpenClDevice::blocking(cl_int err, const char* call) {
  cl_check(err, call);
  ++counters_.submits;
  ++counters_.host_waits;
}

}  // namespace zen_opencl
