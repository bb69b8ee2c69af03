#include "serve_runtime.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <mutex>

#include "context.h"
#include "serving/server.h"
#include "store/store.h"

namespace zen::cli {
namespace {

std::string model_id(const std::filesystem::path& path) { return path.stem().string(); }

std::vector<serving::ModelSpec> model_specs(const EngineOptions& o) {
  if (o.aliases.size() > o.models.size())
    throw po::error("more --alias than -m: each --alias names the -m at its position");
  std::vector<serving::ModelSpec> specs;
  for (size_t i = 0; i < o.models.size(); ++i) {
    const std::filesystem::path path = store::resolve(o.models[i]);
    specs.push_back({i < o.aliases.size() ? o.aliases[i] : model_id(path), path.string()});
  }
  return specs;
}

// The config file's serve section with the command's flags applied.
host::ServeConfig serve_config(host::ServeConfig s, const EngineOptions& o) {
  if (o.ctx) s.ctx = o.ctx;
  if (o.parallel) s.parallel = o.parallel;
  if (o.queue_given) s.queue = o.queue;
  s.deterministic = s.deterministic || o.deterministic;
  if (!o.mcp_config.empty()) s.mcp_config = o.mcp_config;
  return s;
}

}  // namespace

void add_engine_options(po::options_description& desc, EngineOptions& o) {
  desc.add_options()("model,m", po::value(&o.models)->composing(),
                     "model to serve: a name in the store or a GGUF path (repeatable)")(
      "alias", po::value(&o.aliases)->composing(),
      "id clients use for the -m at the same position (default: the file stem)")(
      "parallel", po::value(&o.parallel),
      "sequences decoding together per model (default: as many as the KV cache holds)")(
      "queue", po::value(&o.queue), "waiting requests per model before 429 (default 64)")(
      "ctx", po::value(&o.ctx), "KV cache tokens per model, shared by its requests (default 8192)")(
      "deterministic", "seeded requests give the same text alone or under load");
  o.compute.add_to(desc);
}

void note_engine_flags(const po::variables_map& vm, EngineOptions& o) {
  o.deterministic = vm.count("deterministic") > 0;
  o.queue_given = vm.count("queue") > 0;
  if (o.queue_given && o.queue < 1)
    throw po::error("--queue must be at least 1 (requests waiting per model), got " +
                    std::to_string(o.queue));
}

void log_line(const std::string& line) {
  static std::mutex mu;
  std::lock_guard lock(mu);
  std::fprintf(stderr, "zen-engine: %s\n", line.c_str());
}

int run_engine(const GlobalOptions& global, const EngineOptions& o, const RunPlan& plan) {
  // Signals are taken by sigwait below: block them before any thread exists, so every thread
  // inherits the mask and none of them is interrupted. Writes to closed sockets must not kill.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  const std::vector<serving::ModelSpec> specs = model_specs(o);
  auto host = make_context(global, [&](host::Config& c) { o.compute.apply(c); });
  serving::Server server(*host->plugins, host->config, serve_config(host->config.serve, o), specs,
                         plan.frontends(host->config), plan.frontends_after_load, log_line);
  std::atomic<bool> all_failed{false};
  const bool started = server.start([&] {
    all_failed = true;
    kill(getpid(), SIGTERM);  // process-directed: the sigwait below takes it
  });
  if (started) {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    if (!all_failed)
      log_line(std::string("stopping (") + (sig == SIGINT ? "SIGINT" : "SIGTERM") + ")");
    server.stop();
  }
  if (!started || all_failed) {
    log_line("no model could be loaded; exiting");
    return 1;
  }
  log_line("stopped");
  return 0;
}

}  // namespace zen::cli
