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
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>

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

  std::vector<TestResult> results;
  if (n_prompt > 0) {
    TestResult r{"pp" + std::to_string(n_prompt), n_prompt, 0, {}, 1};
    const std::vector<int32_t> ids = random_tokens(n_prompt, n_vocab, 1);
    run_prompt(ctx, ids);  // warm-up: page in the weights, plan the graph
    for (int i = 0; i < reps; ++i) r.samples_ts.push_back(run_prompt(ctx, ids));
    results.push_back(r);
  }
  if (n_gen > 0) {
    TestResult r{"tg" + std::to_string(n_gen), 0, n_gen, {}, 1};
    const std::vector<int32_t> ids = random_tokens(n_gen, n_vocab, 2);
    run_generate(ctx, ids);
    for (int i = 0; i < reps; ++i) r.samples_ts.push_back(run_generate(ctx, ids));
    results.push_back(r);
  }

  for (int n_seq : seq_counts) {
    TestResult r{"bd" + std::to_string(n_seq), kv_len, n_seq * steps, {}, n_seq};
    const std::vector<int32_t> ids = random_tokens(n_seq * steps, n_vocab, 3);
    run_batched_decode(ctx, n_seq, kv_len, steps, ids);
    for (int i = 0; i < reps; ++i)
      r.samples_ts.push_back(run_batched_decode(ctx, n_seq, kv_len, steps, ids));
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
                              {"samples_ts", r.samples_ts}});
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
  return 0;
}

}  // namespace zen::cli
