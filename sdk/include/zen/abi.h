/* Zen Engine plugin ABI: versioning, status codes, the host API and the plugin entry points.
 *
 * Rules (docs/ABI.md has the full text):
 *  - Nothing C++ crosses this boundary: plain C structs, function pointers, integers, pointers.
 *  - Every struct that crosses starts with zen_hdr. Tables are append-only; a reader checks
 *    struct_size before touching a member (ZEN_HAS_MEMBER) and treats NULL optional members
 *    as "not provided".
 *  - abi_major must match exactly; any abi_minor is accepted (members past what the reader
 *    knows are ignored, members the writer lacks are absent by struct_size).
 */
#ifndef ZEN_ABI_H
#define ZEN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ZEN_ABI_MAJOR 1
#define ZEN_ABI_MINOR 8

/* ---- export macros --------------------------------------------------------------------- */
#if defined(_WIN32)
#define ZEN_EXPORT __declspec(dllexport)
#else
#define ZEN_EXPORT __attribute__((visibility("default")))
#endif

/* A statically linked plugin (ZEN_STATIC_PLUGINS=ON) gets its entry points suffixed with its
 * build id so several plugins can live in one binary; the host finds them through a generated
 * registration table instead of dlsym. Shared plugins keep the plain names. */
#define ZEN_CAT_(a, b) a##_##b
#define ZEN_CAT(a, b) ZEN_CAT_(a, b)
#ifdef ZEN_STATIC_PLUGIN_ID
#define ZEN_PLUGIN_SYMBOL(base) ZEN_CAT(base, ZEN_STATIC_PLUGIN_ID)
#define ZEN_PLUGIN_API
#else
#define ZEN_PLUGIN_SYMBOL(base) base
#define ZEN_PLUGIN_API ZEN_EXPORT
#endif

/* ---- common header ----------------------------------------------------------------------- */
typedef struct zen_hdr {
  uint32_t struct_size; /* sizeof the struct as the writer compiled it */
  uint16_t abi_major;
  uint16_t abi_minor;
} zen_hdr;

#define ZEN_HDR_INIT(type) \
  { (uint32_t)sizeof(type), ZEN_ABI_MAJOR, ZEN_ABI_MINOR }

/* True when `ptr` (a struct starting with zen_hdr) was written with `member` present. */
#define ZEN_HAS_MEMBER(ptr, type, member) \
  ((ptr)->h.struct_size >= offsetof(type, member) + sizeof(((type*)0)->member))

typedef enum zen_status {
  ZEN_OK = 0,
  ZEN_ERR_INVALID_ARG = 1,
  ZEN_ERR_UNSUPPORTED = 2,
  ZEN_ERR_OUT_OF_MEMORY = 3,
  ZEN_ERR_ABI = 4,
  ZEN_ERR_IO = 5,
  ZEN_ERR_INTERNAL = 6,
  ZEN_ERR_NOT_FOUND = 7,
  ZEN_ERR_CANCELLED = 8,
  /* appended in 1.5 */
  ZEN_ERR_BUSY = 9,        /* full right now (a queue): try again shortly */
  ZEN_ERR_UNAVAILABLE = 10 /* not ready (a model loading or failed, the server stopping) */
} zen_status;

typedef enum zen_kind {
  ZEN_KIND_DEVICE = 1,
  ZEN_KIND_ARCH = 2,
  ZEN_KIND_QUANT = 3,
  ZEN_KIND_FRONTEND = 4
} zen_kind;

typedef enum zen_log_level {
  ZEN_LOG_DEBUG = 0,
  ZEN_LOG_INFO = 1,
  ZEN_LOG_WARN = 2,
  ZEN_LOG_ERROR = 3
} zen_log_level;

/* ---- host API: frozen, handed to every plugin at init ------------------------------------ */
typedef struct zen_host_api {
  zen_hdr h;
  /* Versioned service tables: "graph" (zen_graph_api), "engine" (zen_engine_api), ...
   * Returns NULL when the host has no such table at that minor or newer. */
  const void* (*get_api)(const char* name, uint16_t min_minor);
  void (*log)(zen_log_level level, const char* plugin, const char* msg);
  /* Config lookup by dotted key ("cpu.threads", "device.vulkan.heap_mb"). Returns the value
   * as text (strings unquoted, other JSON values serialized) or NULL when unset. The pointer
   * stays valid for the host's lifetime. */
  const char* (*config_get)(const char* key);
  /* Host-owned allocation, for memory whose ownership crosses the boundary. */
  void* (*alloc)(size_t bytes, size_t alignment);
  void (*free)(void* ptr);
} zen_host_api;

/* ---- plugin descriptor, filled by zen_plugin_init ---------------------------------------- */
typedef struct zen_plugin_desc {
  zen_hdr h;
  zen_kind kind;
  const char* name;    /* "cpu", "qwen3", "http": plugins with one name compete by score */
  const char* version; /* the plugin's own version, free text ("0.1.0") */
  const char* variant; /* "avx2", "neon", ... or NULL */
  const void* vtable;  /* zen_device_v1 / zen_arch_v1 / zen_quant_v1 / zen_frontend_v1 */
} zen_plugin_desc;

/* ---- the entry points a plugin exports (three required, two optional) -------------------- */
/* zen_plugin_probe: can this plugin run here, and how well? 0 = cannot. Writes a one-line
 * reason (NUL-terminated, truncated to reason_len) that the host shows in `zen-engine plugins`.
 * Must be compiled without ISA flags and without LTO: it runs before the host knows whether
 * the CPU can execute the rest of the plugin. */
typedef uint32_t (*zen_plugin_probe_fn)(char* reason, size_t reason_len);
/* zen_plugin_init: fill *out (out->h is preset by the host with its own sizes/version). */
typedef zen_status (*zen_plugin_init_fn)(const zen_host_api* host, zen_plugin_desc* out);
typedef void (*zen_plugin_shutdown_fn)(void);
/* zen_plugin_last_error (ABI 1.4, optional: a plugin without it gives only statuses): the one
 * error convention. Every call into a plugin that can fail returns a zen_status; when it is not
 * ZEN_OK, this gives the one-line message of that failure: the calling thread's last failed
 * call into the plugin (init, device_props and device_open included), "" when none failed.
 * Thread-local, so two threads never read or overwrite each other's message; the pointer stays
 * valid until the same thread's next call into the plugin. It replaces per-object error
 * strings (zen_device_v1.last_error stays for older hosts and returns the same text). */
typedef const char* (*zen_plugin_last_error_fn)(void);
/* zen_plugin_identify (ABI 1.4, optional): what the plugin is before anything starts: kind,
 * name, version and variant written to *out as init would (vtable NULL), with no side effect.
 * With it the host scores first and initialises only the plugin it picks among those sharing a
 * name (the best probe score, or the configured CPU variant); the others are never initialised.
 * A plugin without it is initialised to learn its name, as before 1.4. Like the probe, it must
 * run on any CPU of the architecture (no ISA flags). */
typedef zen_status (*zen_plugin_identify_fn)(zen_plugin_desc* out);

#define ZEN_PLUGIN_PROBE_SYMBOL "zen_plugin_probe"
#define ZEN_PLUGIN_INIT_SYMBOL "zen_plugin_init"
#define ZEN_PLUGIN_SHUTDOWN_SYMBOL "zen_plugin_shutdown"
#define ZEN_PLUGIN_LAST_ERROR_SYMBOL "zen_plugin_last_error"
#define ZEN_PLUGIN_IDENTIFY_SYMBOL "zen_plugin_identify"

/* Plugins define their entry points with these so static builds get unique names:
 *   ZEN_PLUGIN_PROBE(reason, len) { ... }
 *   ZEN_PLUGIN_INIT(host, out) { ... }
 *   ZEN_PLUGIN_SHUTDOWN() { ... }
 *   ZEN_PLUGIN_LAST_ERROR() { ... }   (zen/plugin.hpp's ZEN_DEFINE_PLUGIN_LAST_ERROR() defines it)
 */
#ifdef __cplusplus
#define ZEN_EXTERN_C extern "C"
#else
#define ZEN_EXTERN_C
#endif
#define ZEN_PLUGIN_PROBE(reason, len) \
  ZEN_EXTERN_C ZEN_PLUGIN_API uint32_t ZEN_PLUGIN_SYMBOL(zen_plugin_probe)(char* reason, size_t len)
#define ZEN_PLUGIN_INIT(host, out)                                           \
  ZEN_EXTERN_C ZEN_PLUGIN_API zen_status ZEN_PLUGIN_SYMBOL(zen_plugin_init)( \
      const zen_host_api* host, zen_plugin_desc* out)
#define ZEN_PLUGIN_SHUTDOWN() \
  ZEN_EXTERN_C ZEN_PLUGIN_API void ZEN_PLUGIN_SYMBOL(zen_plugin_shutdown)(void)
#define ZEN_PLUGIN_IDENTIFY(out)                                                                  \
  ZEN_EXTERN_C ZEN_PLUGIN_API zen_status ZEN_PLUGIN_SYMBOL(zen_plugin_identify)(zen_plugin_desc * \
                                                                                out)
#define ZEN_PLUGIN_LAST_ERROR() \
  ZEN_EXTERN_C ZEN_PLUGIN_API const char* ZEN_PLUGIN_SYMBOL(zen_plugin_last_error)(void)

#ifdef __cplusplus
}
#endif

#endif /* ZEN_ABI_H */
