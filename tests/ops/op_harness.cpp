#include "op_harness.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

#include "config.h"
#include "device_selection.h"
#include "graph/builder.h"
#include "graph/scheduler.h"
#include "host_api.h"
#include "plugin_registry.h"
#include "services.h"

#include <zen/plugin.hpp>

namespace zen::ops {
namespace {

// Loaded once per test process through the real host: config, registry, every device opened.
struct Devices {
  host::Config config;
  std::unique_ptr<host::PluginRegistry> registry;
  std::vector<graph::DeviceRef> refs;
  std::string cpu_variant;

  Devices() {
    config.plugin_paths = {ZEN_BUILD_PLUGIN_DIR};
    // CTest runs every op family twice on x86: on the best variant and on the baseline.
    if (const char* v = std::getenv("ZEN_CPU_VARIANT"); v && *v) config.cpu_variant = v;
    host::register_core_services();
    registry = std::make_unique<host::PluginRegistry>(config, host::host_api(config));
    for (const host::PluginRecord* rec : registry->loaded(ZEN_KIND_DEVICE)) {
      if (rec->name == "cpu") cpu_variant = rec->variant;
      const auto* table = static_cast<const zen_device_v1*>(rec->vtable);
      for (uint32_t i = 0; i < table->device_count(); ++i)
        refs.push_back(
            graph::DeviceRef::open(table, i, rec->name + ":" + std::to_string(i), rec->last_error));
    }
    std::string list;
    for (const auto& r : refs) list += " " + r.id;
    std::fprintf(stderr, "op harness: devices%s (cpu variant %s)\n", list.c_str(),
                 cpu_variant.c_str());
  }
  ~Devices() {
    for (auto& r : refs) r.close();
  }
};

Devices& all() {
  static Devices d;
  return d;
}

}  // namespace

std::vector<std::string> device_ids() {
  std::vector<std::string> ids;
  for (const auto& r : all().refs) ids.push_back(r.id);
  return ids;
}

const graph::DeviceRef& device(const std::string& id) {
  for (const auto& r : all().refs)
    if (r.id == id) return r;
  ADD_FAILURE() << "device " << id << " did not load";
  static graph::DeviceRef none;
  return none;
}

std::string cpu_variant() { return all().cpu_variant; }

const graph::DeviceRef* cpu_device() {
  for (const auto& r : all().refs)
    if (r.id.rfind("cpu:", 0) == 0) return &r;
  return nullptr;
}

std::vector<uint8_t> OpTest::run_bytes(graph::Graph g,
                                       const std::map<std::string, HostData>& inputs,
                                       const std::string& output) {
  // A device that refuses an op (a quant type or an op family it has no kernel for) is not
  // failed: the case is reported skipped, naming what was refused, and its checks run on the
  // CPU so the rest of the test body still sees real results.
  const graph::DeviceRef* target = &dev();
  std::optional<graph::Scheduler> s;
  try {
    graph::Graph copy = g;
    s.emplace(std::vector<graph::DeviceRef>{*target});
    s->plan(std::move(copy));
  } catch (const zen::Error& e) {
    const graph::DeviceRef* cpu = cpu_device();
    if (e.status != ZEN_ERR_UNSUPPORTED || !cpu || cpu == target) throw;
    ::testing::internal::AssertHelper(
        ::testing::TestPartResult::kSkip, __FILE__, __LINE__,
        (target->id + ": " + e.message + "; checked on " + cpu->id + " instead").c_str()) =
        ::testing::Message();
    target = cpu;
    s.emplace(std::vector<graph::DeviceRef>{*target});
    s->plan(std::move(g));
  }
  for (const auto& [name, data] : inputs) s->set_input(name, data.bytes.data(), data.bytes.size());
  s->compute();
  const graph::Tensor& t = s->graph().tensor(s->graph().find(output));
  std::vector<uint8_t> out(graph::packed_bytes(t.type, t.ne));
  s->get_output(output, out.data(), out.size());
  return out;
}

std::vector<float> OpTest::run(graph::Graph g, const std::map<std::string, HostData>& inputs,
                               const std::string& output) {
  std::vector<uint8_t> bytes = run_bytes(std::move(g), inputs, output);
  std::vector<float> out(bytes.size() / sizeof(float));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
  return out;
}

std::vector<float> random_floats(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

// The compiler's IEEE half type. GCC < 13 has no C++ _Float16 on AArch64 (the cross build of
// tests/cross); its __fp16 is the same IEEE binary16, converted with round to nearest even.
#if defined(__aarch64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
using Half = __fp16;
#else
using Half = _Float16;
#endif

std::vector<uint16_t> to_f16_bits(const std::vector<float>& v) {
  std::vector<uint16_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    Half h = static_cast<Half>(v[i]);
    std::memcpy(&out[i], &h, 2);
  }
  return out;
}

float f16_bits_to_float(uint16_t bits) {
  Half h;
  std::memcpy(&h, &bits, 2);
  return static_cast<float>(h);
}

std::vector<uint16_t> to_bf16_bits(const std::vector<float>& v) {
  std::vector<uint16_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t u;
    std::memcpy(&u, &v[i], 4);
    u += 0x7fff + ((u >> 16) & 1);  // round to nearest even (inputs here are finite)
    out[i] = static_cast<uint16_t>(u >> 16);
  }
  return out;
}

void expect_close(const std::vector<float>& got, const std::vector<double>& want, double atol,
                  double rtol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t bad = 0, first = 0;
  double max_err = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double err = std::fabs(static_cast<double>(got[i]) - want[i]);
    bool ok = err <= atol + rtol * std::fabs(want[i]) && !std::isnan(got[i]);
    if (!ok && bad++ == 0) first = i;
    if (err > max_err || std::isnan(got[i])) max_err = std::isnan(got[i]) ? INFINITY : err;
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << got.size()
                     << " elements out of tolerance (atol " << atol << ", rtol " << rtol
                     << "); first at " << first << ": got " << got[first] << ", want "
                     << want[first] << "; max abs error " << max_err;
}

}  // namespace zen::ops
