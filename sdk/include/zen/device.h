/* Device plugins: own buffers (device memory is not host memory; upload/download are
 * explicit), answer supports_op, and compute (sub)graphs asynchronously. One plugin may expose
 * several devices (vulkan:0, vulkan:1); each is opened by index. */
#ifndef ZEN_DEVICE_H
#define ZEN_DEVICE_H

#include <zen/abi.h>
#include <zen/graph.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zen_device zen_device; /* plugin-owned, opaque to the host */

typedef enum zen_device_type {
  ZEN_DEVICE_CPU = 1,
  ZEN_DEVICE_GPU = 2,     /* discrete */
  ZEN_DEVICE_IGPU = 3,    /* integrated, shares host memory */
  ZEN_DEVICE_ACCEL = 4,   /* other accelerators */
  ZEN_DEVICE_SOFTWARE = 5 /* a GPU API implemented on the CPU (llvmpipe, PoCL CPU) */
} zen_device_type;

typedef struct zen_device_props {
  zen_hdr h;
  char name[64];         /* "cpu", "llvmpipe (LLVM 15.0.6, 256 bits)" */
  char description[256]; /* one line: what it is and how it is driven */
  zen_device_type type;
  uint64_t memory_total;  /* bytes usable for buffers; 0 = unknown */
  uint64_t memory_free;   /* bytes; 0 = unknown */
  uint32_t priority;      /* preference among devices: higher runs ops first */
  uint32_t host_visible;  /* 1: buffer_host_ptr works, weights can be used zero-copy */
  uint32_t compute_units; /* threads, CUs or SMs */
  char pci_bus_id[32];    /* "0000:01:00.0", or "" */
  /* ---- appended in 1.3 ---- */
  /* PCI vendor and device id (0 = unknown): with memory_total, they tell one GPU reached
   * through two APIs apart from two GPUs where a device has no PCI bus id. */
  uint32_t vendor_id;
  uint32_t device_id;
} zen_device_props;

typedef struct zen_device_v1 {
  zen_hdr h;
  /* ---- ABI 1.0: required ---- */
  uint32_t (*device_count)(void);
  zen_status (*device_props)(uint32_t index, zen_device_props* out);
  zen_status (*device_open)(uint32_t index, zen_device** out);
  void (*device_close)(zen_device* dev);
  /* Can this device compute graph tensor `node` (op, types and shapes of it and its srcs)? */
  int (*supports_op)(zen_device* dev, const zen_graph* graph, int32_t node);
  zen_status (*buffer_alloc)(zen_device* dev, uint64_t bytes, zen_buffer** out);
  void (*buffer_free)(zen_device* dev, zen_buffer* buf);
  /* Host address of the buffer's first byte, or NULL when the buffer is not host-visible. */
  void* (*buffer_host_ptr)(zen_device* dev, zen_buffer* buf);
  zen_status (*upload)(zen_device* dev, zen_buffer* buf, uint64_t offset, const void* src,
                       uint64_t bytes);
  zen_status (*download)(zen_device* dev, zen_buffer* buf, uint64_t offset, void* dst,
                         uint64_t bytes);
  /* Enqueue the graph's nodes; may return before they finish. Tensors' buffer/offset/data are
   * set. The graph and everything it points to stay valid until synchronize returns. */
  zen_status (*compute)(zen_device* dev, const zen_graph* graph);
  zen_status (*synchronize)(zen_device* dev);
  /* ---- ABI 1.0: optional (may be NULL) ---- */
  /* Wrap host memory (an mmapped weight file) as a buffer without copying. */
  zen_status (*buffer_wrap_host)(zen_device* dev, void* ptr, uint64_t bytes, zen_buffer** out);
  /* Why the last failing call on this device failed (one line). */
  const char* (*last_error)(zen_device* dev);
  /* Named extensions beyond this table (e.g. "zen_cpu_set_threads"). */
  void* (*get_proc)(zen_device* dev, const char* name);
} zen_device_v1;

#ifdef __cplusplus
}
#endif

#endif /* ZEN_DEVICE_H */
