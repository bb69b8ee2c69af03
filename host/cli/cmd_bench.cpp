// zen-engine bench -m MODEL [-p 512] [-n 128] [-t THREADS] [-r REPS] [--json]: prompt
// processing (one batch of p tokens into an empty cache) and generation (n single-token steps
// from an empty cache) in tokens per second, like llama-bench's pp and tg tests, on
// deterministic pseudo-random token ids. One untimed warm-up run precedes each test.
//
// --decode-seqs 1,4,16,64 adds batched decode, the way a server decodes: N sequences, each
// already holding --kv-len cached positions, take --decode-steps steps of one token each (one
// batch of N tokens per step); t/s is N x steps / time. The cached positions are appended in
// lock-step, as a server's decode steps append them, so each sequence's KV blocks interleave
// with the others' across the cache; their contents are not computed (attention's cost does not
// depend on the values), which keeps a 64 x 256-position setup instant.
//
// -v adds, per test and device, the work per step the device counted over the timed runs
// (submits, host waits, dispatches, barriers, recordings, bytes moved, allocations: the
// "zen_device_counters" extension); --json always carries it, under "device_work".
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>

#include <zen/device_counters.h>
#include <nlohmann/json.hpp>

#include "context.h"
#include "loaded_model.h"
#include "options.h"

namespace zen::cli {
namespace {

struct TestResult {
  std::string name;
  int n_prompt = 0, n_gen = 0;
  std::vector<double> samples_ts;
  int n_seq = 1;  // sequences decoding together (batched decode: n_prompt is their KV length)
  nlohmann::json device_work = nlohmann::json::object();
  double mean() const {
    double s = 0;
    for (double x : samples_ts) s += x;
    return samples_ts.empty() ? 0 : s / static_cast<double>(samples_ts.size());
  }
  double stddev() const {
    if (samples_ts.size() < 2) return 0;
    double m = mean(), s = 0;
    for (double x : samples_ts) s += (x - m) * (x - m);
    return std::sqrt(s / static_cast<double>(samples_ts.size() - 1));
  }
};

std::vector<int32_t> random_tokens(int n, int32_t n_vocab, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int32_t> ids(static_cast<size_t>(n));
  for (int32_t& id : ids) id = static_cast<int32_t>(rng() % static_cast<uint32_t>(n_vocab));
  return ids;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One timed prompt-processing run: tokens/s.
double run_prompt(model::Context& ctx, const std::vector<int32_t>& ids) {
  ctx.kv().clear();
  auto t0 = std::chrono::steady_clock::now();
  ctx.decode(model::Batch::sequence(ids, 0, 0, false));
  return static_cast<double>(ids.size()) / seconds_since(t0);
}

// One timed generation run: n single-token decodes.
double run_generate(model::Context& ctx, const std::vector<int32_t>& ids) {
  ctx.kv().clear();
  auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < ids.size(); ++i)
    ctx.decode(model::Batch::sequence(std::span(&ids[i], 1), static_cast<int32_t>(i), 0, false));
  return static_cast<double>(ids.size()) / seconds_since(t0);
}

// One timed batched-decode run: n_seq sequences of kv_len cached positions, `steps` steps.
double run_batched_decode(model::Context& ctx, int n_seq, int kv_len, int steps,
                          const std::vector<int32_t>& ids) {
  ctx.kv().clear();
  std::vector<int32_t> positions(static_cast<size_t>(n_seq)), seqs(positions.size());
  for (int s = 0; s < n_seq; ++s) seqs[static_cast<size_t>(s)] = s;
  for (int p = 0; p < kv_len; ++p) {
    std::fill(positions.begin(), positions.end(), p);
    if (ctx.kv().append(positions, seqs).empty())
      throw zen::Error(ZEN_ERR_OUT_OF_MEMORY, "bench: the KV cache cannot hold the sequences");
  }
  model::Batch b;
  b.seq_ids = seqs;
  b.logits.assign(positions.size(), 1);  // every sequence samples its next token
  auto t0 = std::chrono::steady_clock::now();
  for (int step = 0; step < steps; ++step) {
    b.tokens.assign(ids.begin() + static_cast<ptrdiff_t>(step) * n_seq,
                    ids.begin() + static_cast<ptrdiff_t>(step + 1) * n_seq);
    b.positions.assign(positions.size(), kv_len + step);
    ctx.decode(b);
  }
  return static_cast<double>(n_seq) * steps / seconds_since(t0);
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

// {device id: {counter: per step, ..., "allocated_bytes": held at the end}} between two counts.
nlohmann::json work_per_step(const std::vector<graph::DeviceRef>& devs,
                             const std::vector<std::optional<zen_device_counters>>& before,
                             double steps) {
  nlohmann::json out = nlohmann::json::object();
  const auto after = count(devs);
  for (size_t i = 0; i < devs.size(); ++i) {
    if (!before[i] || !after[i]) continue;
    nlohmann::json w;
    for (auto [name, member] : kCounters)
      w[name] = static_cast<double>((*after[i]).*member - (*before[i]).*member) / steps;
    w["allocated_bytes"] = after[i]->allocated_bytes;
    out[devs[i].id] = w;
  }
  return out;
}

std::string bytes_text(double b) {
  char s[32];
  if (b < 10240)
    std::snprintf(s, sizeof s, "%.0f B", b);
  else if (b < 10 * 1048576.0)
    std::snprintf(s, sizeof s, "%.1f KiB", b / 1024);
  else
    std::snprintf(s, sizeof s, "%.1f MiB", b / 1048576);
  return s;
}

std::vector<int> parse_counts(const std::string& list) {
  std::vector<int> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    int v = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || end != item.data() + item.size() || v < 1 || v > 4096)
      throw std::invalid_argument("--decode-seqs: '" + item + "' is not a count in 1..4096");
    out.push_back(v);
  }
  return out;
}

}  // namespace

int cmd_bench(const Args& args, const GlobalOptions& global) {
  po::options_description desc("zen-engine bench options");
  desc.add_options()("model,m", po::value<std::string>(), "GGUF model file")(
      "n-prompt,p", po::value<int>()->default_value(512), "prompt tokens (0 = skip pp test)")(
      "n-gen,n", po::value<int>()->default_value(128), "generated tokens (0 = skip tg test)")(
      "threads,t", po::value<unsigned>(), "CPU threads (default: config, else physical cores)")(
      "repetitions,r", po::value<int>()->default_value(3), "timed runs per test")(
      "decode-seqs", po::value<std::string>(),
      "batched decode: sequence counts, e.g. 1,4,16,64 (one token each per step)")(
      "kv-len", po::value<int>()->default_value(256),
      "batched decode: cached positions per sequence")(
      "decode-steps", po::value<int>()->default_value(16), "batched decode: steps per run")(
      "verbose,v", "also print each device's work per step (submits, waits, dispatches, ...)")(
      "json", "print one JSON object")("help,h", "show this help");
  DeviceFlags devices;
  devices.add_to(desc);
  auto vm = parse(args, desc);
  if (vm.count("help") || !vm.count("model")) {
    std::cout << "usage: zen-engine bench -m MODEL [-p 512] [-n 128] [-t N] [-r 3] [-v] [--json]\n"
              << desc;
    return vm.count("help") ? 0 : 2;
  }
  const std::string path = vm["model"].as<std::string>();
  const int n_prompt = vm["n-prompt"].as<int>(), n_gen = vm["n-gen"].as<int>();
  const int reps = vm["repetitions"].as<int>();
  const int kv_len = vm["kv-len"].as<int>(), steps = vm["decode-steps"].as<int>();
  std::vector<int> seq_counts;
  try {
    if (vm.count("decode-seqs")) seq_counts = parse_counts(vm["decode-seqs"].as<std::string>());
  } catch (const std::invalid_argument& e) {
    std::cerr << "zen-engine bench: " << e.what() << "\n";
    return 2;
  }
  if (n_prompt < 0 || n_gen < 0 || reps < 1 || kv_len < 0 || steps < 1 ||
      (n_prompt + n_gen == 0 && seq_counts.empty())) {
    std::cerr << "zen-engine bench: -p and -n must be >= 0 (not both 0 without --decode-seqs), "
                 "-r and --decode-steps >= 1, --kv-len >= 0\n";
    return 2;
  }
  const int max_seqs =
      seq_counts.empty() ? 0 : *std::max_element(seq_counts.begin(), seq_counts.end());
  auto host = make_context(global, [&](host::Config& c) {
    if (vm.count("threads")) c.cpu_threads = vm["threads"].as<unsigned>();
    devices.apply(c);
  });
  model::ContextParams params;
  // Each batched-decode sequence needs its own whole blocks (16 cells).
  const int per_seq = (kv_len + steps + 15) / 16 * 16;
  params.n_ctx = static_cast<uint32_t>(std::max({n_prompt, n_gen, max_seqs * per_seq}) + 32);
  params.n_batch = static_cast<uint32_t>(std::max({n_prompt, max_seqs, 1}));
  host::LoadedModel lm(*host->plugins, host->config, path, params);
  model::Context& ctx = lm.context();
  const int32_t n_vocab = ctx.probe_n_vocab();

  const auto& devs = lm.devices();
  std::vector<TestResult> results;
  if (n_prompt > 0) {
    TestResult r{"pp" + std::to_string(n_prompt), n_prompt, 0, {}, 1};
    const std::vector<int32_t> ids = random_tokens(n_prompt, n_vocab, 1);
    run_prompt(ctx, ids);  // warm-up: page in the weights, plan the graph
    const auto before = count(devs);
    for (int i = 0; i < reps; ++i) r.samples_ts.push_back(run_prompt(ctx, ids));
    r.device_work = work_per_step(devs, before, reps);
    results.push_back(r);
  }
  if (n_gen > 0) {
    TestResult r{"tg" + std::to_string(n_gen), 0, n_gen, {}, 1};
    const std::vector<int32_t> ids = random_tokens(n_gen, n_vocab, 2);
    run_generate(ctx, ids);
    const auto before = count(devs);
    for (int i = 0; i < reps; ++i) r.samples_ts.push_back(run_generate(ctx, ids));
    r.device_work = work_per_step(devs, before, static_cast<double>(reps) * n_gen);
    results.push_back(r);
  }

  for (int n_seq : seq_counts) {
    TestResult r{"bd" + std::to_string(n_seq), kv_len, n_seq * steps, {}, n_seq};
    const std::vector<int32_t> ids = random_tokens(n_seq * steps, n_vocab, 3);
    run_batched_decode(ctx, n_seq, kv_len, steps, ids);
    const auto before = count(devs);
    for (int i = 0; i < reps; ++i)
      r.samples_ts.push_back(run_batched_decode(ctx, n_seq, kv_len, steps, ids));
    r.device_work = work_per_step(devs, before, static_cast<double>(reps) * steps);
    results.push_back(r);
  }

  const unsigned threads = lm.devices().front().props.compute_units;
  if (vm.count("json")) {
    nlohmann::json j = {{"model", path},
                        {"threads", threads},
                        {"devices", lm.devices_summary()},
                        {"placement", lm.context().placement()},
                        {"results", nlohmann::json::array()}};
    for (const TestResult& r : results)
      j["results"].push_back({{"test", r.name},
                              {"n_prompt", r.n_prompt},
                              {"n_gen", r.n_gen},
                              {"n_seq", r.n_seq},
                              {"avg_ts", r.mean()},
                              {"stddev_ts", r.stddev()},
                              {"samples_ts", r.samples_ts},
                              {"device_work", r.device_work}});
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << "model: " << path << " (" << lm.file().architecture() << ", "
            << (lm.file().gguf().file_size() >> 20) << " MiB)\ndevices: " << lm.devices_summary()
            << "\nplacement (last graph): " << lm.context().placement()
            << "\n\n| test   |            t/s | ms/step |\n|--------|----------------|---------|\n";
  for (const TestResult& r : results) {
    // A step is one batch: the whole prompt (pp), one token (tg), or n_seq tokens (bd).
    const double per_step = r.name.starts_with("pp") ? r.n_prompt : r.n_seq;
    char line[160];
    std::snprintf(line, sizeof line, "| %-6s | %8.2f ± %4.2f | %7.1f |\n", r.name.c_str(), r.mean(),
                  r.stddev(), 1000.0 * per_step / r.mean());
    std::cout << line;
  }
  if (!seq_counts.empty())
    std::cout << "\nbdN: N sequences of " << kv_len << " cached positions, " << steps
              << " steps of one token each\n";
  if (vm.count("verbose")) {
    std::cout << "\ndevice work per step (a step: the whole prompt, one token, or one batch):\n";
    for (const TestResult& r : results)
      for (const auto& [id, w] : r.device_work.items()) {
        char line[512];
        std::snprintf(
            line, sizeof line,
            "  %-6s %s: %.2f submits, %.2f host waits, %.1f dispatches, %.1f barriers, "
            "%.2f recordings, %.2f replays, %.1f descriptor writes, %s up, %s down, "
            "%.2f allocations; %s held\n",
            r.name.c_str(), id.c_str(), w["submits"].get<double>(), w["host_waits"].get<double>(),
            w["dispatches"].get<double>(), w["barriers"].get<double>(),
            w["recordings"].get<double>(), w["replays"].get<double>(),
            w["descriptor_writes"].get<double>(),
            bytes_text(w["upload_bytes"].get<double>()).c_str(),
            bytes_text(w["download_bytes"].get<double>()).c_str(), w["allocations"].get<double>(),
            bytes_text(static_cast<double>(w["allocated_bytes"].get<uint64_t>())).c_str());
        std::cout << line;
      }
    if (results.empty() || results.front().device_work.empty())
      std::cout << "  (no device here keeps counters: the CPU device has none)\n";
  }
  return 0;
}

}  // namespace zen::cli
