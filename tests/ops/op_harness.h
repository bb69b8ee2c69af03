// The device-generic op harness: every op test runs on every device the real loader finds in
// the build tree (the best CPU variant, vulkan:0, opencl:0, ...), against a plain
// double-precision reference written in the test, never the kernel under test. A case whose
// graph the device refuses (supports_op says no) is reported skipped with the reason, and its
// checks run on the CPU.
//
//   class RmsNorm : public zen::ops::OpTest {};
//   TEST_P(RmsNorm, OddRows) {
//     zen::graph::Graph g;  ...build one op, name its inputs and output...
//     auto out = run(std::move(g), {{"x", x}}, "y");           // on device GetParam()
//     expect_close(out, reference, tol);
//   }
//   ZEN_OP_TEST(RmsNorm);
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "graph/device_ref.h"
#include "graph/ir.h"

namespace zen::ops {

// Ids of every device found ("cpu:0", ...), for test parametrization.
std::vector<std::string> device_ids();
// The opened device with that id; fails the test if it did not load.
const graph::DeviceRef& device(const std::string& id);
// The CPU device, or nullptr when no CPU plugin loaded.
const graph::DeviceRef* cpu_device();
// Which CPU variant the loader chose (for messages and ISA-specific expectations).
std::string cpu_variant();

// Raw bytes of one graph input (any type: F32 values, F16 bits, quantized blocks, I32 ids).
struct HostData {
  std::vector<uint8_t> bytes;
  template <class T>
  static HostData of(const std::vector<T>& v) {
    HostData d;
    d.bytes.resize(v.size() * sizeof(T));
    std::memcpy(d.bytes.data(), v.data(), d.bytes.size());
    return d;
  }
};

class OpTest : public ::testing::TestWithParam<std::string> {
 protected:
  const graph::DeviceRef& dev() const { return device(GetParam()); }

  // Plans `g` on this test's device alone, sets the inputs by name, computes, and returns the
  // named F32 output. Weights with a host Placement are read in place or uploaded by the
  // scheduler as the device requires.
  std::vector<float> run(graph::Graph g, const std::map<std::string, HostData>& inputs,
                         const std::string& output);
  // The same, returning the output's raw bytes (I32 indices, F16 results).
  std::vector<uint8_t> run_bytes(graph::Graph g, const std::map<std::string, HostData>& inputs,
                                 const std::string& output);
};

// Instantiates an OpTest suite once per device.
#define ZEN_OP_TEST(Suite)                                                                \
  INSTANTIATE_TEST_SUITE_P(Devices, Suite, ::testing::ValuesIn(::zen::ops::device_ids()), \
                           [](const auto& info) {                                         \
                             std::string s = info.param;                                  \
                             for (char& c : s)                                            \
                               if (!isalnum(static_cast<unsigned char>(c))) c = '_';      \
                             return s;                                                    \
                           })

// ---- data and comparison helpers -----------------------------------------------------------
std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f);
// IEEE half bits of each value (round to nearest even), independent of any plugin's code.
std::vector<uint16_t> to_f16_bits(const std::vector<float>& v);
float f16_bits_to_float(uint16_t bits);
std::vector<uint16_t> to_bf16_bits(const std::vector<float>& v);

// Asserts |got - want| <= atol + rtol * |want| elementwise; on failure reports the first bad
// index, the max abs error and the count of bad elements.
void expect_close(const std::vector<float>& got, const std::vector<double>& want, double atol,
                  double rtol = 0.0, const std::string& what = "");

}  // namespace zen::ops
