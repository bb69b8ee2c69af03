#include "serve_runtime.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "context.h"
#include "mcp/tool_hub.h"
#include "serving/c_api.h"
#include "serving/engine_service.h"
#include "serving/model_registry.h"
#include "store/store.h"

namespace zen::cli {
namespace {

std::string model_id(const std::filesystem::path& path) { return path.stem().string(); }

serving::ModelOptions model_options(const host::ServeConfig& s, const EngineOptions& o) {
  serving::ModelOptions m;
  m.n_ctx = o.ctx ? o.ctx : s.ctx;
  m.engine.deterministic = o.deterministic || s.deterministic;
  // Auto: the sequences running together are as many as the KV cache admits (the engine admits
  // a request only when the blocks its prompt needs are free), as llama-server's and vLLM's do.
  const unsigned parallel = o.parallel ? o.parallel : s.parallel;
  m.engine.max_running = parallel ? parallel : host::kAutoParallel;
  m.engine.max_queued = o.queue_given ? o.queue : s.queue;
  m.engine.prefill_chunk = s.prefill_chunk;
  m.engine.prefill_while_decoding = s.prefill_while_decoding;
  // Room for one decode token per running sequence and at least one prompt token.
  m.engine.max_batch_tokens = std::max(s.max_batch_tokens, m.engine.max_running + 1);
  return m;
}

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

// --mcp-config, else the config file's serve.mcp_config; empty when neither is set.
std::string mcp_config_path(const host::Config& config, const EngineOptions& o) {
  return o.mcp_config.empty() ? config.serve.mcp_config : o.mcp_config;
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
  const host::ServeConfig& sc = host->config.serve;
  const std::vector<serving::FrontendConfig> frontend_configs = plan.frontends(host->config);

  serving::ModelRegistry models(*host->plugins, host->config, model_options(sc, o), specs,
                                log_line);
  serving::EngineService service(models, log_line);
  if (const std::string path = mcp_config_path(host->config, o); !path.empty())
    service.set_tool_hub(mcp::ToolHub::start(std::filesystem::path(path), log_line));

  std::optional<serving::Frontends> frontends;
  auto start_frontends = [&] {
    frontends.emplace(*host->plugins, frontend_configs, serving::engine_api(),
                      serving::engine_handle(service));
    for (const std::string& address : frontends->addresses()) log_line("serving on " + address);
  };
  std::atomic<bool> all_failed{false};
  std::thread watcher;
  if (plan.frontends_after_load) {
    models.start_loading();
    if (models.wait_loaded() == std::optional<size_t>(0)) {
      models.stop();
      log_line("no model could be loaded; exiting");
      return 1;
    }
    start_frontends();
  } else {
    start_frontends();  // first, so /health and /ready answer while the models load
    models.start_loading();
    // A server whose every model failed has nothing to serve: stop it, exit 1.
    watcher = std::thread([&] {
      if (models.wait_loaded() == std::optional<size_t>(0)) {
        all_failed = true;
        kill(getpid(), SIGTERM);  // process-directed: the sigwait below takes it
      }
    });
  }

  int sig = 0;
  sigwait(&stop_signals, &sig);
  if (!all_failed)
    log_line(std::string("stopping (") + (sig == SIGINT ? "SIGINT" : "SIGTERM") + ")");
  frontends.reset();
  models.stop();
  if (watcher.joinable()) watcher.join();
  if (all_failed) {
    log_line("no model could be loaded; exiting");
    return 1;
  }
  log_line("stopped");
  return 0;
}

}  // namespace zen::cli
