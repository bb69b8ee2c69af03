// zen-engine bench -m MODEL [-p 512] [-n 128] [-t THREADS] [-r REPS] [--json]: prompt
// processing, generation and (--decode-seqs 1,4,16,64) batched decode in tokens per second, like
// llama-bench's pp and tg tests; core/model/throughput.h says what each test runs.
//
// -v adds, per test and device, the work per step the device counted over the timed runs
// (submits, host waits, dispatches, barriers, recordings, bytes moved, allocations: the
// "zen_device_counters" extension); --json always carries it, under "device_work".
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "context.h"
#include "loaded_model.h"
#include "model/throughput.h"
#include "options.h"

namespace zen::cli {
namespace {

// {device id: {counter: per step, ..., "allocated_bytes": held at the end}}
nlohmann::json work_json(const model::ThroughputResult& r) {
  nlohmann::json out = nlohmann::json::object();
  for (const model::DeviceWork& w : r.device_work) {
    nlohmann::json& d = out[w.device];
    for (const auto& [name, v] : w.per_step) d[name] = v;
    d["allocated_bytes"] = w.allocated_bytes;
  }
  return out;
}

}  // namespace

int cmd_bench(const Args& args, const GlobalOptions& global) {
  po::options_description desc("zen-engine bench options");
  desc.add_options()("model,m", po::value<std::string>(), "GGUF model file")(
      "n-prompt,p", po::value<int>()->default_value(512), "prompt tokens (0 = skip pp test)")(
      "n-gen,n", po::value<int>()->default_value(128), "generated tokens (0 = skip tg test)")(
      "repetitions,r", po::value<int>()->default_value(3), "timed runs per test")(
      "decode-seqs", po::value<std::string>(),
      "batched decode: sequence counts, e.g. 1,4,16,64 (one token each per step)")(
      "kv-len", po::value<int>()->default_value(256),
      "batched decode: cached positions per sequence")(
      "decode-steps", po::value<int>()->default_value(16), "batched decode: steps per run")(
      "verbose,v", "also print each device's work per step (submits, waits, dispatches, ...)")(
      "json", "print one JSON object")("help,h", "show this help");
  ComputeFlags compute;
  compute.add_to(desc);
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
    if (vm.count("decode-seqs"))
      seq_counts = parse_int_list(vm["decode-seqs"].as<std::string>(), "--decode-seqs", 1, 4096);
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
  auto host = make_context(global, [&](host::Config& c) { compute.apply(c); });
  model::ContextParams params;
  // Each batched-decode sequence needs its own whole blocks (16 cells).
  const int per_seq = (kv_len + steps + 15) / 16 * 16;
  params.n_ctx = static_cast<uint32_t>(std::max({n_prompt, n_gen, max_seqs * per_seq}) + 32);
  params.n_batch = static_cast<uint32_t>(std::max({n_prompt, max_seqs, 1}));
  host::LoadedModel lm(*host->plugins, host->config, path, params);
  model::Context& ctx = lm.context();

  const model::ThroughputRun run{ctx, lm.devices(), reps};
  std::vector<model::ThroughputResult> results;
  if (n_prompt > 0) results.push_back(model::bench_prompt(run, n_prompt));
  if (n_gen > 0) results.push_back(model::bench_generate(run, n_gen));
  for (int n_seq : seq_counts)
    results.push_back(model::bench_batched_decode(run, n_seq, kv_len, steps));

  const unsigned threads = lm.devices().front().props.compute_units;
  if (vm.count("json")) {
    nlohmann::json j = {{"model", path},
                        {"threads", threads},
                        {"devices", lm.devices_summary()},
                        {"placement", lm.context().placement()},
                        {"results", nlohmann::json::array()}};
    for (const model::ThroughputResult& r : results)
      j["results"].push_back({{"test", r.name},
                              {"n_prompt", r.n_prompt},
                              {"n_gen", r.n_gen},
                              {"n_seq", r.n_seq},
                              {"avg_ts", r.mean()},
                              {"stddev_ts", r.stddev()},
                              {"samples_ts", r.samples_ts},
                              {"device_work", work_json(r)}});
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << "model: " << path << " (" << lm.file().architecture() << ", "
            << (lm.file().gguf().file_size() >> 20) << " MiB)\ndevices: " << lm.devices_summary()
            << "\nplacement (last graph): " << lm.context().placement()
            << "\n\n| test   |            t/s | ms/step |\n|--------|----------------|---------|\n";
  for (const model::ThroughputResult& r : results) {
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
    for (const model::ThroughputResult& r : results)
      for (const model::DeviceWork& w : r.device_work)
        std::cout << "  " << r.name << std::string(7 - std::min<size_t>(r.name.size(), 6), ' ')
                  << w.device << ": " << w.summary() << "\n";
    if (results.empty() || results.front().device_work.empty())
      std::cout << "  (no device here keeps counters: the CPU device has none)\n";
  }
  return 0;
}

}  // namespace zen::cli
