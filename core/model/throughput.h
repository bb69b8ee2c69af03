// Throughput runs of a Context, as llama-bench measures them: prompt processing (one batch of
// n tokens into an empty cache), generation (n single-token steps from an empty cache) and
// batched decode (n_seq sequences of kv_len cached positions taking steps of one token each,
// the way a server decodes). Deterministic pseudo-random token ids; one untimed warm-up run
// precedes the timed ones. Each result also carries the work every device counted per step
// (the "zen_device_counters" extension), for devices that keep counters.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <zen/device_counters.h>

#include "graph/device_ref.h"
#include "model/context.h"

namespace zen::model {

// One device's counters between two readings, divided by the steps taken.
struct DeviceWork {
  std::string device;                                    // "vulkan:0"
  std::vector<std::pair<const char*, double>> per_step;  // ("submits", 1.0), ... in report order
  uint64_t allocated_bytes = 0;                          // held at the end
  double get(const char* name) const;
  // "1.00 submits, 1.00 host waits, 594.0 dispatches, ..., 144 B up, 593.5 KiB down, 0.00
  // allocations; 483.5 MiB held"
  std::string summary() const;
};

struct ThroughputResult {
  std::string name;  // "pp512", "tg128", "bd16"
  int n_prompt = 0, n_gen = 0;
  int n_seq = 1;  // sequences decoding together (batched decode: n_prompt is their KV length)
  std::vector<double> samples_ts;  // tokens per second, one per timed run
  std::vector<DeviceWork> device_work;
  double mean() const;
  double stddev() const;
};

struct ThroughputRun {
  Context& ctx;
  const std::vector<graph::DeviceRef>& devices;
  int repetitions = 3;
};

ThroughputResult bench_prompt(const ThroughputRun& run, int n_prompt);
ThroughputResult bench_generate(const ThroughputRun& run, int n_gen);
ThroughputResult bench_batched_decode(const ThroughputRun& run, int n_seq, int kv_len, int steps);

}  // namespace zen::model
