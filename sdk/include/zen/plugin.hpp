// Header-only C++ side of the plugin ABI: the host handle, error conversion, and the macro that
// defines a plugin's three entry points. Everything here compiles into the plugin; nothing C++
// crosses the boundary.
#pragma once

#include <zen/abi.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

namespace zen {

// The host API a plugin was given at init, for the plugin's lifetime.
class Host {
 public:
  static const zen_host_api*& api() {
    static const zen_host_api* api = nullptr;
    return api;
  }
  static void log(zen_log_level level, const char* plugin, const std::string& msg) {
    if (api() && api()->log) api()->log(level, plugin, msg.c_str());
  }
  // Config value by dotted key, or nullptr when unset.
  static const char* config(const char* key) {
    return api() && api()->config_get ? api()->config_get(key) : nullptr;
  }
  // A versioned host service table ("graph", "model", "engine"), or nullptr.
  template <class Table>
  static const Table* service(const char* name, uint16_t min_minor = 0) {
    return api() && api()->get_api ? static_cast<const Table*>(api()->get_api(name, min_minor))
                                   : nullptr;
  }
};

// Write msg into a caller-provided (buffer, length) pair, always NUL-terminated.
inline void write_reason(char* buf, size_t len, const std::string& msg) {
  if (!buf || len == 0) return;
  std::snprintf(buf, len, "%s", msg.c_str());
}

// An error a plugin throws internally; the C wrappers turn it into a status + message.
struct Error : std::exception {
  zen_status status;
  std::string message;
  Error(zen_status s, std::string m) : status(s), message(std::move(m)) {}
  const char* what() const noexcept override { return message.c_str(); }
};

// Run f(), turning any exception into a status; the message goes to `last_error`.
template <class F>
zen_status guarded(std::string& last_error, F&& f) noexcept {
  try {
    f();
    return ZEN_OK;
  } catch (const Error& e) {
    last_error = e.message;
    return e.status;
  } catch (const std::bad_alloc&) {
    last_error = "out of memory";
    return ZEN_ERR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    last_error = e.what();
    return ZEN_ERR_INTERNAL;
  } catch (...) {
    last_error = "unknown error";
    return ZEN_ERR_INTERNAL;
  }
}

// Fill a descriptor the host handed to init; checks the host's ABI major first.
inline zen_status fill_desc(const zen_host_api* host, zen_plugin_desc* out, zen_kind kind,
                            const char* name, const char* version, const char* variant,
                            const void* vtable) {
  if (!host || !out || host->h.abi_major != ZEN_ABI_MAJOR) return ZEN_ERR_ABI;
  Host::api() = host;
  zen_plugin_desc desc = {ZEN_HDR_INIT(zen_plugin_desc), kind, name, version, variant, vtable};
  // The host preset out->h.struct_size to what it can hold; never write past it.
  size_t n = out->h.struct_size < sizeof desc ? out->h.struct_size : sizeof desc;
  std::memcpy(out, &desc, n);
  out->h.struct_size = static_cast<uint32_t>(n);
  return ZEN_OK;
}

}  // namespace zen

// Defines the three entry points. `probe_expr` is an expression of type uint32_t with
// `reason` and `reason_len` in scope; `shutdown_stmt` runs at shutdown.
#define ZEN_DEFINE_PLUGIN(kind, name, version, variant, vtable_ptr, probe_expr, shutdown_stmt) \
  ZEN_PLUGIN_PROBE(reason, reason_len) {                                                       \
    (void)reason;                                                                              \
    (void)reason_len;                                                                          \
    return (probe_expr);                                                                       \
  }                                                                                            \
  ZEN_PLUGIN_INIT(host, out) {                                                                 \
    return ::zen::fill_desc(host, out, kind, name, version, variant, vtable_ptr);              \
  }                                                                                            \
  ZEN_PLUGIN_SHUTDOWN() { shutdown_stmt; }
