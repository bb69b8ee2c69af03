#include "model/throughput.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <random>

#include <zen/plugin.hpp>

namespace zen::model {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<int32_t> random_tokens(int n, int32_t n_vocab, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int32_t> ids(static_cast<size_t>(n));
  for (int32_t& id : ids) id = static_cast<int32_t>(rng() % static_cast<uint32_t>(n_vocab));
  return ids;
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The counters a report shows, in its order.
constexpr std::pair<const char*, uint64_t zen_device_counters::*> kCounters[] = {
    {"submits", &zen_device_counters::submits},
    {"host_waits", &zen_device_counters::host_waits},
    {"dispatches", &zen_device_counters::dispatches},
    {"barriers", &zen_device_counters::barriers},
    {"recordings", &zen_device_counters::recordings},
    {"replays", &zen_device_counters::replays},
    {"descriptor_writes", &zen_device_counters::descriptor_writes},
    {"upload_bytes", &zen_device_counters::upload_bytes},
    {"download_bytes", &zen_device_counters::download_bytes},
    {"allocations", &zen_device_counters::allocations}};

// Each device's counters now (nullopt: it keeps none).
std::vector<std::optional<zen_device_counters>> count(const std::vector<graph::DeviceRef>& devs) {
  std::vector<std::optional<zen_device_counters>> out;
  for (const graph::DeviceRef& d : devs) {
    zen_device_counters c;
    out.push_back(d.counters(c) ? std::optional(c) : std::nullopt);
  }
  return out;
}

// Runs `once` (returning tokens/s) for a warm-up and then `run.repetitions` timed times; the
// device work is divided by steps_per_run times the repetitions.
ThroughputResult measure(const ThroughputRun& run, ThroughputResult r, double steps_per_run,
                         const std::function<double()>& once) {
  once();  // warm-up: page in the weights, plan the graph
  const auto before = count(run.devices);
  for (int i = 0; i < run.repetitions; ++i) r.samples_ts.push_back(once());
  const auto after = count(run.devices);
  const double steps = steps_per_run * run.repetitions;
  for (size_t i = 0; i < run.devices.size(); ++i) {
    if (!before[i] || !after[i]) continue;
    DeviceWork w{run.devices[i].id, {}, after[i]->allocated_bytes};
    for (auto [name, member] : kCounters)
      w.per_step.emplace_back(
          name, static_cast<double>((*after[i]).*member - (*before[i]).*member) / steps);
    r.device_work.push_back(std::move(w));
  }
  return r;
}

}  // namespace

double DeviceWork::get(const char* name) const {
  for (const auto& [n, v] : per_step)
    if (std::string_view(n) == name) return v;
  return 0;
}

std::string DeviceWork::summary() const {
  auto bytes = [](double b) {
    char s[32];
    if (b < 10240)
      std::snprintf(s, sizeof s, "%.0f B", b);
    else if (b < 10 * 1048576.0)
      std::snprintf(s, sizeof s, "%.1f KiB", b / 1024);
    else
      std::snprintf(s, sizeof s, "%.1f MiB", b / 1048576);
    return std::string(s);
  };
  char line[512];
  std::snprintf(line, sizeof line,
                "%.2f submits, %.2f host waits, %.1f dispatches, %.1f barriers, %.2f recordings, "
                "%.2f replays, %.1f descriptor writes, %s up, %s down, %.2f allocations; %s held",
                get("submits"), get("host_waits"), get("dispatches"), get("barriers"),
                get("recordings"), get("replays"), get("descriptor_writes"),
                bytes(get("upload_bytes")).c_str(), bytes(get("download_bytes")).c_str(),
                get("allocations"), bytes(static_cast<double>(allocated_bytes)).c_str());
  return line;
}

double ThroughputResult::mean() const {
  double s = 0;
  for (double x : samples_ts) s += x;
  return samples_ts.empty() ? 0 : s / static_cast<double>(samples_ts.size());
}

double ThroughputResult::stddev() const {
  if (samples_ts.size() < 2) return 0;
  double m = mean(), s = 0;
  for (double x : samples_ts) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(samples_ts.size() - 1));
}

ThroughputResult bench_prompt(const ThroughputRun& run, int n_prompt) {
  const std::vector<int32_t> ids = random_tokens(n_prompt, run.ctx.probe_n_vocab(), 1);
  return measure(run, {"pp" + std::to_string(n_prompt), n_prompt, 0, 1, {}, {}}, 1, [&] {
    run.ctx.kv().clear();
    const auto t0 = Clock::now();
    run.ctx.decode(Batch::sequence(ids, 0, 0, false));
    return static_cast<double>(ids.size()) / seconds_since(t0);
  });
}

ThroughputResult bench_generate(const ThroughputRun& run, int n_gen) {
  const std::vector<int32_t> ids = random_tokens(n_gen, run.ctx.probe_n_vocab(), 2);
  return measure(run, {"tg" + std::to_string(n_gen), 0, n_gen, 1, {}, {}}, n_gen, [&] {
    run.ctx.kv().clear();
    const auto t0 = Clock::now();
    for (size_t i = 0; i < ids.size(); ++i)
      run.ctx.decode(Batch::sequence(std::span(&ids[i], 1), static_cast<int32_t>(i), 0, false));
    return static_cast<double>(ids.size()) / seconds_since(t0);
  });
}

// The cached positions are appended in lock-step, as a server's decode steps append them, so
// each sequence's KV blocks interleave with the others' across the cache; their contents are
// not computed (attention's cost does not depend on the values), which keeps a 64 x
// 256-position setup instant.
ThroughputResult bench_batched_decode(const ThroughputRun& run, int n_seq, int kv_len, int steps) {
  Context& ctx = run.ctx;
  const std::vector<int32_t> ids = random_tokens(n_seq * steps, ctx.probe_n_vocab(), 3);
  ThroughputResult r{"bd" + std::to_string(n_seq), kv_len, n_seq * steps, n_seq, {}, {}};
  return measure(run, r, steps, [&] {
    ctx.kv().clear();
    std::vector<int32_t> positions(static_cast<size_t>(n_seq)), seqs(positions.size());
    for (int s = 0; s < n_seq; ++s) seqs[static_cast<size_t>(s)] = s;
    for (int p = 0; p < kv_len; ++p) {
      std::fill(positions.begin(), positions.end(), p);
      if (ctx.kv().append(positions, seqs).empty())
        throw Error(ZEN_ERR_OUT_OF_MEMORY, "bench: the KV cache cannot hold the sequences");
    }
    Batch b;
    b.seq_ids = seqs;
    b.logits.assign(positions.size(), 1);  // every sequence samples its next token
    const auto t0 = Clock::now();
    for (int step = 0; step < steps; ++step) {
      b.tokens.assign(ids.begin() + static_cast<ptrdiff_t>(step) * n_seq,
                      ids.begin() + static_cast<ptrdiff_t>(step + 1) * n_seq);
      b.positions.assign(positions.size(), kv_len + step);
      ctx.decode(b);
    }
    return static_cast<double>(n_seq) * steps / seconds_since(t0);
  });
}

}  // namespace zen::model
