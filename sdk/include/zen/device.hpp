// C++ wrapper for device plugins: implement zen::Device and a provider, get a zen_device_v1.
//
//   class MyDevice : public zen::Device { ... };
//   struct MyProvider {
//     static uint32_t count();
//     static void props(uint32_t index, zen_device_props& out);   // throw zen::Error on failure
//     static zen::Device* open(uint32_t index);                   // new'd; closed by the host
//   };
//   static const zen_device_v1 kTable = zen::device_table<MyProvider>();
#pragma once

#include <zen/device.h>
#include <zen/device_counters.h>
#include <zen/plugin.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace zen {

// One opened device. Lives inside the plugin; the host sees it as an opaque zen_device*.
class Device {
 public:
  virtual ~Device() = default;
  virtual bool supports_op(const zen_graph& g, int32_t node) = 0;
  virtual zen_buffer* alloc(uint64_t bytes) = 0;
  virtual void free(zen_buffer* buf) = 0;
  virtual void* host_ptr(zen_buffer* buf) = 0;  // nullptr when not host-visible
  virtual void upload(zen_buffer* buf, uint64_t off, const void* src, uint64_t bytes) = 0;
  virtual void download(zen_buffer* buf, uint64_t off, void* dst, uint64_t bytes) = 0;
  virtual void compute(const zen_graph& g) = 0;
  virtual void synchronize() = 0;
  // Optional: wrap host memory without copying; return nullptr when unsupported.
  virtual zen_buffer* wrap_host(void* /*ptr*/, uint64_t /*bytes*/) { return nullptr; }
  virtual void* get_proc(const char* /*name*/) { return nullptr; }
  // Optional: what the device has done (zen/device_counters.h); device_table() answers the
  // "zen_device_counters" extension from it, so devices only keep the counts.
  virtual const zen_device_counters* counters() const { return nullptr; }
};

// For a device's "zen_device_counters" extension: copies what the caller's struct has room
// for (its h.struct_size) and says how much that was.
inline zen_status copy_counters(const zen_device_counters& c, zen_device_counters* out) {
  if (!out) return ZEN_ERR_INVALID_ARG;
  const uint32_t n = out->h.struct_size && out->h.struct_size < sizeof c
                         ? out->h.struct_size
                         : static_cast<uint32_t>(sizeof c);
  if (n < sizeof(zen_hdr)) return ZEN_ERR_INVALID_ARG;
  zen_device_counters full = c;
  full.h = ZEN_HDR_INIT(zen_device_counters);
  full.h.struct_size = n;
  std::memcpy(out, &full, n);
  return ZEN_OK;
}

// Whether environment variable `var` ("2,12": op ids) names op `op`: a device's debugging
// switch to refuse op families (ZEN_VULKAN_REFUSE_OPS, ZEN_OPENCL_REFUSE_OPS), moving them back
// to the CPU to find which kernel a wrong result comes from, or to split a test's graph. Read
// once per variable name (pass a string literal).
inline bool op_refused_by_env(const char* var, uint32_t op) {
  static std::vector<std::pair<const char*, std::vector<uint32_t>>> read;
  auto it = std::find_if(read.begin(), read.end(), [&](const auto& r) { return r.first == var; });
  if (it == read.end()) {
    std::vector<uint32_t> ids;
    const char* v = std::getenv(var);
    for (const char* p = v ? v : ""; *p;) {
      char* end = nullptr;
      const unsigned long id = std::strtoul(p, &end, 10);
      if (end == p) break;
      ids.push_back(static_cast<uint32_t>(id));
      p = *end ? end + 1 : end;
    }
    it = read.insert(read.end(), {var, std::move(ids)});
  }
  return std::find(it->second.begin(), it->second.end(), op) != it->second.end();
}

namespace detail {
inline Device* as_device(zen_device* d) { return reinterpret_cast<Device*>(d); }
}  // namespace detail

template <class Provider>
zen_device_v1 device_table() {
  using detail::as_device;
  zen_device_v1 t{};
  t.h = ZEN_HDR_INIT(zen_device_v1);
  t.device_count = [] { return Provider::count(); };
  t.device_props = [](uint32_t index, zen_device_props* out) -> zen_status {
    if (!out) return fail(ZEN_ERR_INVALID_ARG, "device_props: NULL out");
    return guarded([&] {
      zen_device_props p{};
      p.h = ZEN_HDR_INIT(zen_device_props);
      Provider::props(index, p);
      uint32_t n =
          out->h.struct_size && out->h.struct_size < sizeof p ? out->h.struct_size : sizeof p;
      std::memcpy(out, &p, n);
      out->h.struct_size = n;
    });
  };
  t.device_open = [](uint32_t index, zen_device** out) -> zen_status {
    if (!out) return fail(ZEN_ERR_INVALID_ARG, "device_open: NULL out");
    return guarded([&] { *out = reinterpret_cast<zen_device*>(Provider::open(index)); });
  };
  t.device_close = [](zen_device* d) { delete as_device(d); };
  t.supports_op = [](zen_device* d, const zen_graph* g, int32_t node) -> int {
    try {
      return as_device(d)->supports_op(*g, node) ? 1 : 0;
    } catch (...) {
      return 0;
    }
  };
  t.buffer_alloc = [](zen_device* d, uint64_t bytes, zen_buffer** out) {
    return guarded([&] { *out = as_device(d)->alloc(bytes); });
  };
  t.buffer_free = [](zen_device* d, zen_buffer* b) { as_device(d)->free(b); };
  t.buffer_host_ptr = [](zen_device* d, zen_buffer* b) { return as_device(d)->host_ptr(b); };
  t.upload = [](zen_device* d, zen_buffer* b, uint64_t off, const void* src, uint64_t n) {
    return guarded([&] { as_device(d)->upload(b, off, src, n); });
  };
  t.download = [](zen_device* d, zen_buffer* b, uint64_t off, void* dst, uint64_t n) {
    return guarded([&] { as_device(d)->download(b, off, dst, n); });
  };
  t.compute = [](zen_device* d, const zen_graph* g) {
    return guarded([&] { as_device(d)->compute(*g); });
  };
  t.synchronize = [](zen_device* d) { return guarded([&] { as_device(d)->synchronize(); }); };
  t.buffer_wrap_host = [](zen_device* d, void* p, uint64_t n, zen_buffer** out) {
    return guarded([&] {
      *out = as_device(d)->wrap_host(p, n);
      if (!*out) throw Error(ZEN_ERR_UNSUPPORTED, "device cannot wrap host memory");
    });
  };
  // For hosts before zen_plugin_last_error: the same thread-local message.
  t.last_error = [](zen_device*) { return thread_error().c_str(); };
  t.get_proc = [](zen_device* d, const char* name) -> void* {
    if (name && std::strcmp(name, ZEN_DEVICE_COUNTERS_PROC) == 0 && as_device(d)->counters()) {
      zen_device_counters_fn fn = [](zen_device* dev, zen_device_counters* out) {
        const zen_device_counters* c = dev ? as_device(dev)->counters() : nullptr;
        return c ? copy_counters(*c, out) : ZEN_ERR_INVALID_ARG;
      };
      return reinterpret_cast<void*>(fn);
    }
    return as_device(d)->get_proc(name);
  };
  return t;
}

}  // namespace zen
