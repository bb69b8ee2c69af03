// Header-only C++ side of the plugin ABI: the host handle, error conversion (statuses with
// thread-local messages, zen/abi.h's one error convention), and the macro that defines a
// plugin's entry points. Everything here compiles into the plugin; nothing C++
// crosses the boundary.
#pragma once

#include <zen/abi.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <utility>

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

// The message of this thread's last failed call into the plugin: what zen_plugin_last_error
// returns (zen/abi.h). Each thread has its own.
inline std::string& thread_error() {
  thread_local std::string message;
  return message;
}

// A failure: the status, with its message recorded for zen_plugin_last_error.
inline zen_status fail(zen_status status, std::string message) noexcept {
  try {
    thread_error() = std::move(message);
  } catch (...) {
  }
  return status;
}

// Run f(), turning any exception into a status; the message goes to thread_error() and, for
// callers with an ABI that hands messages back itself, to `message`.
template <class F>
zen_status guarded(std::string& message, F&& f) noexcept {
  zen_status st = ZEN_OK;
  try {
    f();
    return ZEN_OK;
  } catch (const Error& e) {
    message = e.message;
    st = e.status;
  } catch (const std::bad_alloc&) {
    message = "out of memory";
    st = ZEN_ERR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    message = e.what();
    st = ZEN_ERR_INTERNAL;
  } catch (...) {
    message = "unknown error";
    st = ZEN_ERR_INTERNAL;
  }
  return fail(st, message);
}
template <class F>
zen_status guarded(F&& f) noexcept {
  std::string message;
  return guarded(message, std::forward<F>(f));
}

// Write a descriptor the host preset (its h.struct_size says how much it can hold).
inline zen_status write_desc(zen_plugin_desc* out, zen_kind kind, const char* name,
                             const char* version, const char* variant, const void* vtable) {
  if (!out) return fail(ZEN_ERR_INVALID_ARG, "NULL descriptor");
  zen_plugin_desc desc = {ZEN_HDR_INIT(zen_plugin_desc), kind, name, version, variant, vtable};
  const size_t n = out->h.struct_size < sizeof desc ? out->h.struct_size : sizeof desc;
  std::memcpy(out, &desc, n);
  out->h.struct_size = static_cast<uint32_t>(n);
  return ZEN_OK;
}

// Fill a descriptor the host handed to init; checks the host's ABI major first.
inline zen_status fill_desc(const zen_host_api* host, zen_plugin_desc* out, zen_kind kind,
                            const char* name, const char* version, const char* variant,
                            const void* vtable) {
  if (!host || !out) return fail(ZEN_ERR_INVALID_ARG, "init: NULL host API or descriptor");
  if (host->h.abi_major != ZEN_ABI_MAJOR)
    return fail(ZEN_ERR_ABI, "built for ABI " + std::to_string(ZEN_ABI_MAJOR) + ".x, the host is " +
                                 std::to_string(host->h.abi_major) + ".x");
  Host::api() = host;
  return write_desc(out, kind, name, version, variant, vtable);
}

}  // namespace zen

// Defines zen_plugin_last_error over thread_error(), for plugins that write their other entry
// points by hand.
#define ZEN_DEFINE_PLUGIN_LAST_ERROR() \
  ZEN_PLUGIN_LAST_ERROR() { return ::zen::thread_error().c_str(); }

// Defines the entry points (zen_plugin_last_error included). `probe_expr` is an expression of type
// uint32_t with `reason` and `reason_len` in scope; `shutdown_stmt` runs at shutdown.
#define ZEN_DEFINE_PLUGIN(kind, name, version, variant, vtable_ptr, probe_expr, shutdown_stmt) \
  ZEN_PLUGIN_PROBE(reason, reason_len) {                                                       \
    (void)reason;                                                                              \
    (void)reason_len;                                                                          \
    return (probe_expr);                                                                       \
  }                                                                                            \
  ZEN_PLUGIN_INIT(host, out) {                                                                 \
    return ::zen::fill_desc(host, out, kind, name, version, variant, vtable_ptr);              \
  }                                                                                            \
  ZEN_PLUGIN_IDENTIFY(out) {                                                                   \
    return ::zen::write_desc(out, kind, name, version, variant, nullptr);                      \
  }                                                                                            \
  ZEN_PLUGIN_SHUTDOWN() { shutdown_stmt; }                                                     \
  ZEN_DEFINE_PLUGIN_LAST_ERROR()
