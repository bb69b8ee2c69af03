// Loads the real built device plugins with dlopen for the graph tests: the best CPU variant
// whose probe scores above 0 (from the build's plugin directory) and the test-only partial
// device. Stand-in until the host's plugin loader exists; kept to this one file so the switch
// is small.
#pragma once

#include <dlfcn.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <zen/abi.h>
#include <zen/device.h>

#include "graph/builder.h"
#include "graph/device_ref.h"

namespace zen::test {

class Plugins {
 public:
  static Plugins& get() {
    static Plugins p;
    return p;
  }

  // Opened devices; dev is nullptr when loading failed (error() says why).
  const graph::DeviceRef& cpu() const { return cpu_; }
  const graph::DeviceRef& testdev() const { return testdev_; }
  const std::string& cpu_variant() const { return cpu_variant_; }
  const std::string& error() const { return error_; }

 private:
  struct Loaded {
    void* handle = nullptr;
    zen_plugin_shutdown_fn shutdown = nullptr;
  };

  Plugins() {
    cpu_ = load_best_cpu();
    testdev_ = open(ZEN_TEST_PLUGIN_DIR "/zen-testdev.so", "testdev:0");
  }
  ~Plugins() {
    cpu_.close();
    testdev_.close();
    for (Loaded& l : loaded_) {
      if (l.shutdown) l.shutdown();
      dlclose(l.handle);
    }
  }

  static const zen_host_api* host_api() {
    static const zen_host_api api = {
        ZEN_HDR_INIT(zen_host_api),
        [](const char* name, uint16_t minor) -> const void* {
          return std::string(name) == ZEN_GRAPH_API_NAME && minor <= ZEN_ABI_MINOR
                     ? graph::graph_api()
                     : nullptr;
        },
        [](zen_log_level, const char* plugin, const char* msg) {
          std::fprintf(stderr, "[%s] %s\n", plugin, msg);
        },
        [](const char*) -> const char* { return nullptr; },
        [](size_t bytes, size_t align) {
          align = align < alignof(std::max_align_t) ? alignof(std::max_align_t) : align;
          return std::aligned_alloc(align, (bytes + align - 1) / align * align);
        },
        [](void* p) { std::free(p); }};
    return &api;
  }

  template <class Fn>
  static Fn sym(void* h, const char* name) {
    return reinterpret_cast<Fn>(dlsym(h, name));
  }

  // The highest-scoring zen-cpu-*.so whose probe says it can run here.
  graph::DeviceRef load_best_cpu() {
    std::string best;
    uint32_t best_score = 0;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(ZEN_BUILD_PLUGIN_DIR, ec)) {
      std::string file = e.path().filename().string();
      if (file.rfind("zen-cpu-", 0) != 0 || e.path().extension() != ".so") continue;
      void* h = dlopen(e.path().c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!h) continue;
      char reason[256] = "";
      auto probe = sym<zen_plugin_probe_fn>(h, ZEN_PLUGIN_PROBE_SYMBOL);
      uint32_t score = probe ? probe(reason, sizeof reason) : 0;
      if (score > best_score) {
        best_score = score;
        best = e.path().string();
        cpu_variant_ = file.substr(8, file.size() - 8 - 3);
      }
      dlclose(h);
    }
    if (best.empty()) {
      error_ += "no runnable zen-cpu-*.so in " ZEN_BUILD_PLUGIN_DIR "; ";
      return {};
    }
    return open(best, "cpu");
  }

  graph::DeviceRef open(const std::string& path, const std::string& id) {
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      error_ += std::string("dlopen ") + path + ": " + dlerror() + "; ";
      return {};
    }
    auto probe = sym<zen_plugin_probe_fn>(h, ZEN_PLUGIN_PROBE_SYMBOL);
    char reason[256] = "";
    if (!probe || probe(reason, sizeof reason) == 0) {
      error_ += path + ": probe says it cannot run here: " + reason + "; ";
      dlclose(h);
      return {};
    }
    auto init = sym<zen_plugin_init_fn>(h, ZEN_PLUGIN_INIT_SYMBOL);
    zen_plugin_desc desc{};
    desc.h = ZEN_HDR_INIT(zen_plugin_desc);
    if (!init || init(host_api(), &desc) != ZEN_OK || desc.kind != ZEN_KIND_DEVICE) {
      error_ += path + ": init failed; ";
      dlclose(h);
      return {};
    }
    loaded_.push_back({h, sym<zen_plugin_shutdown_fn>(h, ZEN_PLUGIN_SHUTDOWN_SYMBOL)});
    return graph::DeviceRef::open(static_cast<const zen_device_v1*>(desc.vtable), 0, id);
  }

  graph::DeviceRef cpu_, testdev_;
  std::string cpu_variant_, error_;
  std::vector<Loaded> loaded_;
};

// Skips nothing: a test that needs a device fails (with the reason) when it did not load.
#define ZEN_REQUIRE_DEVICES()                                                                    \
  ASSERT_TRUE(::zen::test::Plugins::get().cpu().dev&& ::zen::test::Plugins::get().testdev().dev) \
      << ::zen::test::Plugins::get().error()

}  // namespace zen::test
