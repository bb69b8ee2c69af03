// GPU time per kernel, summed over runs and printed as a table: what a device plugin's
// profiling mode (ZEN_VULKAN_PROFILE, ZEN_OPENCL_PROFILE) reports when the device closes.
// Labels are "kernel[size]" (the size, workgroups or work-items, tells a matmul's shape); the
// table gives the totals per kernel, then the costliest labels.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace zen_device_common {

// Whether a profiling variable (ZEN_VULKAN_PROFILE, ZEN_OPENCL_PROFILE) asks for a profile: set
// to anything but "" or "0".
inline bool profile_requested(const char* var) {
  const char* v = std::getenv(var);
  return v && *v && !(v[0] == '0' && v[1] == '\0');
}

class KernelTimes {
 public:
  uint32_t label_id(const std::string& label) {
    auto [it, added] = ids_.try_emplace(label, static_cast<uint32_t>(names_.size()));
    if (added) {
      names_.push_back(label);
      totals_.emplace_back();
    }
    return it->second;
  }
  void add(uint32_t id, double ns) {
    ++totals_[id].calls;
    totals_[id].ns += ns;
  }
  // One graph run ended; `ns`: its time from first start to last end.
  void end_run(double ns) {
    ++runs_;
    run_ns_ += ns;
  }

  void report(std::FILE* out, const char* who, const char* note) const {
    if (runs_ == 0) return;
    double sum = 0;
    for (const Total& t : totals_) sum += t.ns;
    std::fprintf(out, "%s profile: %llu runs, %.1f us per run (%s)\n", who,
                 static_cast<unsigned long long>(runs_), run_ns_ / 1e3 / double(runs_), note);
    std::map<std::string, Total> kernels;
    for (size_t i = 0; i < names_.size(); ++i) {
      Total& k = kernels[names_[i].substr(0, names_[i].find('['))];
      k.calls += totals_[i].calls;
      k.ns += totals_[i].ns;
    }
    Rows rows(kernels.begin(), kernels.end());
    print(out, rows, rows.size(), sum);
    rows.clear();
    for (size_t i = 0; i < names_.size(); ++i) rows.emplace_back(names_[i], totals_[i]);
    print(out, rows, 30, sum);
  }

 private:
  struct Total {
    uint64_t calls = 0;
    double ns = 0;
  };
  using Rows = std::vector<std::pair<std::string, Total>>;

  void print(std::FILE* out, Rows& rows, size_t limit, double sum) const {
    std::sort(rows.begin(), rows.end(),
              [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
    const double runs = static_cast<double>(runs_);
    std::fprintf(out, "  %-36s %10s %12s %10s %7s\n", "kernel", "calls/run", "us/run", "us/call",
                 "share");
    for (size_t i = 0; i < rows.size() && i < limit; ++i) {
      const Total& t = rows[i].second;
      std::fprintf(out, "  %-36s %10.1f %12.1f %10.2f %6.1f%%\n", rows[i].first.c_str(),
                   double(t.calls) / runs, t.ns / 1e3 / runs,
                   t.ns / 1e3 / double(std::max<uint64_t>(t.calls, 1)),
                   sum > 0 ? 100.0 * t.ns / sum : 0.0);
    }
  }

  std::map<std::string, uint32_t> ids_;
  std::vector<std::string> names_;
  std::vector<Total> totals_;
  uint64_t runs_ = 0;
  double run_ns_ = 0;
};

}  // namespace zen_device_common
