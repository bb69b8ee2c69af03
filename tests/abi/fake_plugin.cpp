// One source, many deliberately good and bad plugins: each build defines FAKE_* to pick what
// this .so gets wrong. The host must refuse or accept each with the right one-line reason.
#include <zen/abi.h>
#include <zen/device.h>

#include <cstdio>
#include <cstring>

#ifndef FAKE_NAME
#define FAKE_NAME "fake"
#endif
#ifndef FAKE_SCORE
#define FAKE_SCORE 5
#endif

namespace {

// A device table as a newer minor would write it: same prefix, one more member.
struct device_v1_newer {
  zen_device_v1 base;
  void* (*member_from_the_future)(void);
};

// zen_plugin_last_error's message: this thread's last failure (zen/abi.h).
thread_local const char* t_error = "";
zen_status fail(zen_status st, const char* why) {
  t_error = why;
  return st;
}

#ifdef FAKE_OPEN_FAILS
uint32_t count() { return 1; }
zen_status props(uint32_t, zen_device_props* out) {
  std::snprintf(out->name, sizeof out->name, "fake");
  out->type = ZEN_DEVICE_ACCEL;
  return ZEN_OK;
}
zen_status open_dev(uint32_t, zen_device**) {
  return fail(ZEN_ERR_IO, "fake: the device node /dev/fake0 is busy");
}
#else
uint32_t count() { return 0; }
zen_status props(uint32_t, zen_device_props*) { return ZEN_ERR_NOT_FOUND; }
zen_status open_dev(uint32_t, zen_device**) { return ZEN_ERR_NOT_FOUND; }
#endif
void close_dev(zen_device*) {}
int supports(zen_device*, const zen_graph*, int32_t) { return 0; }
zen_status alloc(zen_device*, uint64_t, zen_buffer**) { return ZEN_ERR_UNSUPPORTED; }
void free_buf(zen_device*, zen_buffer*) {}
void* host_ptr(zen_device*, zen_buffer*) { return nullptr; }
zen_status up(zen_device*, zen_buffer*, uint64_t, const void*, uint64_t) { return ZEN_OK; }
zen_status down(zen_device*, zen_buffer*, uint64_t, void*, uint64_t) { return ZEN_OK; }
zen_status compute(zen_device*, const zen_graph*) { return ZEN_OK; }
zen_status sync(zen_device*) { return ZEN_OK; }
zen_status wrap(zen_device*, void*, uint64_t, zen_buffer**) { return ZEN_ERR_UNSUPPORTED; }
const char* last_error(zen_device*) { return ""; }
void* get_proc(zen_device*, const char*) { return nullptr; }

device_v1_newer make_table() {
  device_v1_newer t{};
  t.base.h = ZEN_HDR_INIT(zen_device_v1);
  t.base.device_count = count;
  t.base.device_props = props;
  t.base.device_open = open_dev;
  t.base.device_close = close_dev;
  t.base.supports_op = supports;
  t.base.buffer_alloc = alloc;
  t.base.buffer_free = free_buf;
  t.base.buffer_host_ptr = host_ptr;
  t.base.upload = up;
  t.base.download = down;
  t.base.compute = compute;
  t.base.synchronize = sync;
  t.base.buffer_wrap_host = wrap;
  t.base.last_error = last_error;
  t.base.get_proc = get_proc;
#ifdef FAKE_NULL_OPTIONAL
  t.base.buffer_wrap_host = nullptr;
  t.base.get_proc = nullptr;
#endif
#ifdef FAKE_NULL_REQUIRED
  t.base.compute = nullptr;
#endif
#ifdef FAKE_SMALL_VTABLE
  t.base.h.struct_size = offsetof(zen_device_v1, compute);
#endif
#ifdef FAKE_NEWER_MINOR
  t.base.h.struct_size = sizeof(device_v1_newer);
  t.base.h.abi_minor = ZEN_ABI_MINOR + 3;
#endif
  return t;
}

const device_v1_newer kTable = make_table();

}  // namespace

extern "C" ZEN_EXPORT uint32_t zen_plugin_probe(char* reason, size_t len) {
  std::snprintf(reason, len, "%s",
                FAKE_SCORE ? "fake hardware present" : "fake: needs imaginary hardware");
  return FAKE_SCORE;
}

#ifndef FAKE_MISSING_INIT
extern "C" ZEN_EXPORT zen_status zen_plugin_init(const zen_host_api* host, zen_plugin_desc* out) {
  if (!host || host->h.abi_major != ZEN_ABI_MAJOR) return ZEN_ERR_ABI;
#ifdef FAKE_INIT_FAILS
  return fail(ZEN_ERR_IO, "fake: the license file /etc/fake.lic is missing");
#endif
#ifdef FAKE_NEVER_INIT
  return fail(ZEN_ERR_INTERNAL, "initialised although another plugin was preferred");
#endif
  zen_plugin_desc d{};
  d.h = ZEN_HDR_INIT(zen_plugin_desc);
#ifdef FAKE_WRONG_MAJOR
  d.h.abi_major = ZEN_ABI_MAJOR + 1;
#endif
#ifdef FAKE_NEWER_MINOR
  d.h.abi_minor = ZEN_ABI_MINOR + 3;
#endif
  d.kind = ZEN_KIND_DEVICE;
  d.name = FAKE_NAME;
  d.version = "9.9.9";
  d.variant = nullptr;
  d.vtable = &kTable;
  std::memcpy(out, &d, out->h.struct_size < sizeof d ? out->h.struct_size : sizeof d);
  return ZEN_OK;
}
#endif

extern "C" ZEN_EXPORT void zen_plugin_shutdown(void) {}

#ifdef FAKE_IDENTIFY
extern "C" ZEN_EXPORT zen_status zen_plugin_identify(zen_plugin_desc* out) {
  zen_plugin_desc d{};
  d.h = ZEN_HDR_INIT(zen_plugin_desc);
  d.kind = ZEN_KIND_DEVICE;
  d.name = FAKE_NAME;
  d.version = "9.9.9";
  std::memcpy(out, &d, out->h.struct_size < sizeof d ? out->h.struct_size : sizeof d);
  return ZEN_OK;
}
#endif

extern "C" ZEN_EXPORT const char* zen_plugin_last_error(void) { return t_error; }
