// Helpers shared by the graph tests: deterministic data, weights placed on a real device, and
// running a graph through the real scheduler.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "graph/scheduler.h"
#include "plugin_fixture.h"

namespace zen::test {

inline std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -1.0f,
                                        float hi = 1.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// Half floats through the compiler's own conversion, independent of the CPU plugin's.
inline std::vector<uint16_t> to_f16(const std::vector<float>& v) {
  std::vector<uint16_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    _Float16 h = static_cast<_Float16>(v[i]);
    std::memcpy(&out[i], &h, 2);
  }
  return out;
}
inline float f16_value(uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, 2);
  return static_cast<float>(h);
}

// Host memory wrapped as a buffer of a host-visible device (the zero-copy mmap path); the
// device must not free the memory, only the wrapper.
class WrappedWeight {
 public:
  WrappedWeight(const graph::DeviceRef& dev, void* data, uint64_t bytes) : dev_(dev) {
    dev.check(dev.table->buffer_wrap_host(dev.dev, data, bytes, &buf_), "wrap_host");
  }
  ~WrappedWeight() { dev_.table->buffer_free(dev_.dev, buf_); }
  WrappedWeight(const WrappedWeight&) = delete;
  WrappedWeight& operator=(const WrappedWeight&) = delete;
  graph::Placement placement() const { return {nullptr, dev_.id, buf_, 0}; }

 private:
  const graph::DeviceRef& dev_;
  zen_buffer* buf_ = nullptr;
};

// Plans and runs a graph; inputs by name, outputs read back as floats.
class Runner {
 public:
  Runner(std::vector<graph::DeviceRef> devices, graph::Graph g) : s_(std::move(devices)) {
    s_.plan(std::move(g));
  }
  template <class T>
  Runner& in(const std::string& name, const std::vector<T>& v) {
    s_.set_input(name, v.data(), v.size() * sizeof(T));
    return *this;
  }
  Runner& go() {
    s_.compute();
    return *this;
  }
  template <class T = float>
  std::vector<T> out(const std::string& name) {
    const graph::Tensor& t = s_.graph().tensor(s_.graph().find(name));
    std::vector<T> v(graph::packed_bytes(t.type, t.ne) / sizeof(T));
    s_.get_output(name, v.data(), v.size() * sizeof(T));
    return v;
  }
  graph::Scheduler& scheduler() { return s_; }

 private:
  graph::Scheduler s_;
};

inline std::vector<graph::DeviceRef> cpu_only() { return {Plugins::get().cpu()}; }

}  // namespace zen::test
