// One kernel launch: sets a kernel's arguments in the order kernels/*.cl declare them and
// enqueues it on the device's queue, counting it (LaunchContext::counters).
#pragma once

#include <zen/graph.h>
#include <zen/plugin.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "ops.h"

namespace zen_opencl {

class Launch {
 public:
  Launch(const LaunchContext& c, const char* kernel) : c_(c), name_(kernel) {
    const auto it = c.kernels->find(kernel);
    if (it == c.kernels->end())
      throw zen::Error(ZEN_ERR_INTERNAL,
                       std::string("opencl: kernel ") + kernel + " missing from the program");
    slot_ = &it->second;
    k_ = slot_->kernel;
    if (slot_->epoch != c.counters->allocations) {
      slot_->last.clear();
      slot_->epoch = c.counters->allocations;
    }
  }
  // A tensor: buffer, byte offset, ne, nb (TENSOR() in kernels/00_common.cl); nullptr binds
  // the dummy buffer.
  Launch& tensor(const zen_tensor* t) {
    cl_mem mem = c_.dummy;
    cl_ulong off = 0;
    cl_long4 ne{{1, 1, 1, 1}}, nb{{0, 0, 0, 0}};
    if (t) {
      if (!t->buffer)
        throw zen::Error(ZEN_ERR_INVALID_ARG, std::string("opencl: tensor '") +
                                                  (t->name ? t->name : "") + "' has no buffer");
      mem = reinterpret_cast<const Buffer*>(t->buffer)->mem;
      off = t->offset;
      for (int i = 0; i < 4; ++i) {
        ne.s[i] = t->ne[i];
        nb.s[i] = static_cast<cl_long>(t->nb[i]);
      }
    }
    arg(sizeof mem, &mem);
    arg(sizeof off, &off);
    arg(sizeof ne, &ne);
    return arg(sizeof nb, &nb);
  }
  Launch& i32(int32_t v) {
    const cl_int x = v;
    return arg(sizeof x, &x);
  }
  Launch& mem(cl_mem m) { return arg(sizeof m, &m); }
  Launch& i64(cl_long v) { return arg(sizeof v, &v); }
  Launch& int4(const cl_int4& v) { return arg(sizeof v, &v); }
  Launch& f32(float v) {
    const cl_float x = v;
    return arg(sizeof x, &x);
  }
  // n work-items, work-groups of the driver's choosing.
  void run(int64_t n) { enqueue(n, 0); }
  // n_groups work-groups of `local` work-items each (get_group_id is the group).
  void run_groups(int64_t n_groups, size_t local) {
    enqueue(n_groups * static_cast<int64_t>(local), local);
  }
  // The largest power of two <= cap that this kernel can run as one work-group on the device.
  size_t local_size(size_t cap) const {
    size_t most = 1;
    if (clGetKernelWorkGroupInfo(k_, nullptr, CL_KERNEL_WORK_GROUP_SIZE, sizeof most, &most,
                                 nullptr) != CL_SUCCESS)
      most = 1;
    size_t l = 1;
    while (l * 2 <= cap && l * 2 <= most) l *= 2;
    return l;
  }

 private:
  Launch& arg(size_t size, const void* v) {
    if (slot_->last.size() <= idx_) slot_->last.resize(idx_ + 1);
    std::vector<unsigned char>& last = slot_->last[idx_];
    const auto* bytes = static_cast<const unsigned char*>(v);
    const bool same = last.size() == size && std::memcmp(last.data(), bytes, size) == 0;
    if (c_.profile) c_.profile->argument(!same);
    if (same) {
      ++idx_;  // the kernel holds these bytes already
      return *this;
    }
    last.clear();  // a failed set leaves it unknown
    const cl_int err = clSetKernelArg(k_, idx_, size, v);
    if (err != CL_SUCCESS)
      throw zen::Error(ZEN_ERR_INTERNAL, cl_failure("clSetKernelArg", err) + " (" + name_ +
                                             ", argument " + std::to_string(idx_) + ")");
    last.assign(bytes, bytes + size);
    ++idx_;
    return *this;
  }
  void enqueue(int64_t n, size_t local) {
    if (n <= 0) return;
    const size_t global = static_cast<size_t>(n);
    cl_event ev = nullptr;
    const cl_int err =
        clEnqueueNDRangeKernel(c_.queue, k_, 1, nullptr, &global, local ? &local : nullptr, 0,
                               nullptr, c_.profile ? &ev : nullptr);
    if (err != CL_SUCCESS)
      throw zen::Error(ZEN_ERR_INTERNAL, cl_failure("clEnqueueNDRangeKernel", err) + " (" + name_ +
                                             ", " + std::to_string(n) + " work-items)");
    ++c_.counters->dispatches;
    ++c_.counters->descriptor_writes;  // the argument set written for this launch
    if (c_.profile) c_.profile->add(ev, std::string(name_) + "[" + std::to_string(n) + "]");
  }

  const LaunchContext& c_;
  const char* name_;
  KernelSlot* slot_ = nullptr;
  cl_kernel k_ = nullptr;
  cl_uint idx_ = 0;
};

}  // namespace zen_opencl
