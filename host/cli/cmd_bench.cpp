// zen-engine bench -m MODEL [-p 512] [-n 128] [-t THREADS] [-r REPS] [--json]: prompt
// processing (one batch of p tokens into an empty cache) and generation (n single-token steps
// from an empty cache) in tokens per second, like llama-bench's pp and tg tests, on
// deterministic pseudo-random token ids. One untimed warm-up run precedes each test.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>

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

}  // namespace

int cmd_bench(const Args& args, const GlobalOptions& global) {
  po::options_description desc("zen-engine bench options");
  desc.add_options()("model,m", po::value<std::string>(), "GGUF model file")(
      "n-prompt,p", po::value<int>()->default_value(512), "prompt tokens (0 = skip pp test)")(
      "n-gen,n", po::value<int>()->default_value(128), "generated tokens (0 = skip tg test)")(
      "threads,t", po::value<unsigned>(), "CPU threads (default: config, else physical cores)")(
      "repetitions,r", po::value<int>()->default_value(3), "timed runs per test")(
      "json", "print one JSON object")("help,h", "show this help");
  DeviceFlags devices;
  devices.add_to(desc);
  auto vm = parse(args, desc);
  if (vm.count("help") || !vm.count("model")) {
    std::cout << "usage: zen-engine bench -m MODEL [-p 512] [-n 128] [-t N] [-r 3] [--json]\n"
              << desc;
    return vm.count("help") ? 0 : 2;
  }
  const std::string path = vm["model"].as<std::string>();
  const int n_prompt = vm["n-prompt"].as<int>(), n_gen = vm["n-gen"].as<int>();
  const int reps = vm["repetitions"].as<int>();
  if (n_prompt < 0 || n_gen < 0 || reps < 1 || n_prompt + n_gen == 0) {
    std::cerr << "zen-engine bench: -p and -n must be >= 0 (not both 0), -r >= 1\n";
    return 2;
  }
  auto host = make_context(global, [&](host::Config& c) {
    if (vm.count("threads")) c.cpu_threads = vm["threads"].as<unsigned>();
    devices.apply(c);
  });
  model::ContextParams params;
  params.n_ctx = static_cast<uint32_t>(std::max(n_prompt, n_gen) + 32);
  params.n_batch = static_cast<uint32_t>(std::max(n_prompt, 1));
  host::LoadedModel lm(*host->plugins, host->config, path, params);
  model::Context& ctx = lm.context();
  const int32_t n_vocab = ctx.probe_n_vocab();

  std::vector<TestResult> results;
  if (n_prompt > 0) {
    TestResult r{"pp" + std::to_string(n_prompt), n_prompt, 0, {}};
    const std::vector<int32_t> ids = random_tokens(n_prompt, n_vocab, 1);
    run_prompt(ctx, ids);  // warm-up: page in the weights, plan the graph
    for (int i = 0; i < reps; ++i) r.samples_ts.push_back(run_prompt(ctx, ids));
    results.push_back(r);
  }
  if (n_gen > 0) {
    TestResult r{"tg" + std::to_string(n_gen), 0, n_gen, {}};
    const std::vector<int32_t> ids = random_tokens(n_gen, n_vocab, 2);
    run_generate(ctx, ids);
    for (int i = 0; i < reps; ++i) r.samples_ts.push_back(run_generate(ctx, ids));
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
                              {"avg_ts", r.mean()},
                              {"stddev_ts", r.stddev()},
                              {"samples_ts", r.samples_ts}});
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << "model: " << path << " (" << lm.file().architecture() << ", "
            << (lm.file().gguf().file_size() >> 20) << " MiB)\ndevices: " << lm.devices_summary()
            << "\nplacement (last graph): " << lm.context().placement()
            << "\n\n| test   |            t/s |\n|--------|----------------|\n";
  for (const TestResult& r : results) {
    char line[128];
    std::snprintf(line, sizeof line, "| %-6s | %8.2f ± %4.2f |\n", r.name.c_str(), r.mean(),
                  r.stddev());
    std::cout << line;
  }
  return 0;
}

}  // namespace zen::cli
