/* The "zen_device_counters" device extension (reached through zen_device_v1.get_proc): what a
 * device has done since it was opened, so `zen-engine bench -v` can report the work per token
 * and tests can assert the structure of a decode step (one submit, one host wait, no weight
 * traffic, nothing recorded or allocated again once warm) without timing anything.
 *
 *   zen_device_counters_fn f = (zen_device_counters_fn)table->get_proc(dev,
 *                                                                       ZEN_DEVICE_COUNTERS_PROC);
 *   zen_device_counters c = {ZEN_HDR_INIT(zen_device_counters)};
 *   if (f && f(dev, &c) == ZEN_OK) ...
 *
 * Counters only grow. A device that has no notion of one (the CPU has no command buffers)
 * leaves it 0. The writer fills at most c.h.struct_size bytes and sets struct_size to what it
 * filled, so newer members are absent, not garbage, for an older plugin. */
#ifndef ZEN_DEVICE_COUNTERS_H
#define ZEN_DEVICE_COUNTERS_H

#include <zen/device.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ZEN_DEVICE_COUNTERS_PROC "zen_device_counters"

typedef struct zen_device_counters {
  zen_hdr h;
  uint64_t submits;           /* batches handed to the device's queue (vkQueueSubmit, ...) */
  uint64_t host_waits;        /* times the host blocked until the device finished something */
  uint64_t dispatches;        /* kernels executed (a replayed command buffer counts again) */
  uint64_t barriers;          /* pipeline barriers executed between kernels */
  uint64_t recordings;        /* command buffers recorded (replays reuse one: not counted) */
  uint64_t replays;           /* submits of a command buffer recorded for an earlier call */
  uint64_t descriptor_writes; /* descriptor sets (kernel argument sets) written */
  uint64_t upload_bytes;      /* host -> device, through upload() */
  uint64_t download_bytes;    /* device -> host, through download() */
  uint64_t allocations;       /* device memory allocations made (buffers, scratch, staging) */
  uint64_t allocated_bytes;   /* device memory held now, by this device */
} zen_device_counters;

typedef zen_status (*zen_device_counters_fn)(zen_device* dev, zen_device_counters* out);

#ifdef __cplusplus
}
#endif

#endif /* ZEN_DEVICE_COUNTERS_H */
