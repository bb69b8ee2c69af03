// GPU time per kernel launch (ZEN_OPENCL_PROFILE=1): the queue is made with
// CL_QUEUE_PROFILING_ENABLE, every launch keeps its event, and synchronize() reads each one's
// start and end (the in-order queue runs them one after another, so these are the kernels'
// own times). Totals per kernel[work-items] print to stderr when the device closes, with the
// host's time to enqueue a graph.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../common/kernel_times.h"
#include "cl_api.h"

namespace zen_opencl {

class LaunchProfile {
 public:
  // nullptr unless ZEN_OPENCL_PROFILE is set to a non-empty value other than 0.
  static std::unique_ptr<LaunchProfile> from_env() {
    if (!zen_device_common::profile_requested("ZEN_OPENCL_PROFILE")) return nullptr;
    return std::make_unique<LaunchProfile>();
  }
  ~LaunchProfile() {
    collect();
    if (graphs_ > 0)
      std::fprintf(stderr,
                   "opencl profile: host enqueue %.1f us per graph, %.0f of %.0f kernel arguments "
                   "set (the others held from the last launch)\n",
                   host_ns_ / 1e3 / static_cast<double>(graphs_),
                   static_cast<double>(args_set_) / static_cast<double>(graphs_),
                   static_cast<double>(args_) / static_cast<double>(graphs_));
    times_.report(stderr, "opencl", "in-order queue");
  }

  void add(cl_event ev, const std::string& label) {
    pending_.emplace_back(ev, times_.label_id(label));
  }
  void argument(bool set) {
    ++args_;
    args_set_ += set;
  }
  void enqueued_graph(std::chrono::steady_clock::duration host) {
    ++graphs_;
    host_ns_ += static_cast<double>(std::chrono::nanoseconds(host).count());
  }
  // After clFinish: the pending launches' times, and their span as one run.
  void collect() {
    if (pending_.empty()) return;
    cl_ulong first = ~cl_ulong{0}, last = 0;
    for (auto [ev, id] : pending_) {
      cl_ulong start = 0, end = 0;
      if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr) ==
              CL_SUCCESS &&
          clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) ==
              CL_SUCCESS &&
          end >= start) {
        times_.add(id, static_cast<double>(end - start));
        first = std::min(first, start);
        last = std::max(last, end);
      }
      clReleaseEvent(ev);
    }
    pending_.clear();
    if (last > first) times_.end_run(static_cast<double>(last - first));
  }

 private:
  std::vector<std::pair<cl_event, uint32_t>> pending_;
  zen_device_common::KernelTimes times_;
  uint64_t graphs_ = 0, args_ = 0, args_set_ = 0;
  double host_ns_ = 0;
};

}  // namespace zen_opencl
