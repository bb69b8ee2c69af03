// zen-engine serve -m MODEL [-m ...]: the OpenAI-compatible server. The frontend plugins start
// first (so /health and /ready answer at once), then the models load on a thread of their own;
// SIGINT/SIGTERM stop the frontends, then the engines, and the process exits 0.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <thread>

#include "context.h"
#include "options.h"
#include "serving/c_api.h"
#include "serving/engine_service.h"
#include "serving/frontends.h"
#include "serving/model_registry.h"
#include "store/store.h"

namespace zen::cli {
namespace {

struct ServeOptions {
  std::vector<std::string> models, aliases, cors;
  std::string host = "127.0.0.1", api_key;
  int port = -1;  // -1: the config's, else 3690
  unsigned parallel = 0, queue = 0, ctx = 0, threads = 0, max_body_mb = 0;
  double header_timeout = 0;
  bool deterministic = false;
  bool host_given = false, queue_given = false;
};

// One line on stderr per event, whole lines even when threads log at once.
void log_line(const std::string& line) {
  static std::mutex mu;
  std::lock_guard lock(mu);
  std::fprintf(stderr, "zen-engine: %s\n", line.c_str());
}

std::string model_id(const std::filesystem::path& path) { return path.stem().string(); }

// The http frontend's config: the config file's "frontend.http" section, overridden by flags.
nlohmann::json http_config(const host::Config& config, const ServeOptions& o) {
  nlohmann::json c = nlohmann::json::object();
  if (config.raw.contains("frontend") && config.raw["frontend"].contains("http"))
    c = config.raw["frontend"]["http"];
  if (o.host_given || !c.contains("host")) c["host"] = o.host;
  if (o.port >= 0) c["port"] = o.port;
  if (!c.contains("port")) c["port"] = 3690;
  if (!o.api_key.empty())
    c["api_key"] = o.api_key;
  else if (const char* k = std::getenv("ZEN_API_KEY"); k && *k)
    c["api_key"] = k;
  if (!o.cors.empty()) c["cors_origins"] = o.cors;
  if (o.max_body_mb) c["max_body_bytes"] = uint64_t{o.max_body_mb} << 20;
  if (o.header_timeout > 0) c["header_timeout_s"] = o.header_timeout;
  if (!c["host"].is_string() || !c["port"].is_number_integer() || c["port"].get<int>() < 0 ||
      c["port"].get<int>() > 65535)
    throw host::ConfigError("frontend.http: 'host' must be a string and 'port' 0 to 65535");
  return c;
}

serving::ModelOptions model_options(const host::ServeConfig& s, const ServeOptions& o) {
  serving::ModelOptions m;
  m.n_ctx = o.ctx ? o.ctx : s.ctx;
  m.engine.deterministic = o.deterministic || s.deterministic;
  m.engine.max_running = o.parallel ? o.parallel : s.parallel;
  m.engine.max_queued = o.queue_given ? o.queue : s.queue;
  m.engine.prefill_chunk = s.prefill_chunk;
  // Room for one decode token per running sequence and at least one prompt token.
  m.engine.max_batch_tokens = std::max(s.max_batch_tokens, m.engine.max_running + 1);
  return m;
}

std::vector<serving::ModelSpec> model_specs(const ServeOptions& o) {
  if (o.aliases.size() > o.models.size())
    throw po::error("more --alias than -m: each --alias names the -m at its position");
  std::vector<serving::ModelSpec> specs;
  for (size_t i = 0; i < o.models.size(); ++i) {
    const std::filesystem::path path = store::resolve(o.models[i]);
    specs.push_back({i < o.aliases.size() ? o.aliases[i] : model_id(path), path.string()});
  }
  return specs;
}

}  // namespace

int cmd_serve(const Args& args, const GlobalOptions& global) {
  ServeOptions o;
  po::options_description desc("zen-engine serve options");
  desc.add_options()("model,m", po::value(&o.models)->composing(),
                     "model to serve: a name in the store or a GGUF path (repeatable)")(
      "alias", po::value(&o.aliases)->composing(),
      "id clients use for the -m at the same position (default: the file stem)")(
      "host", po::value(&o.host), "address to listen on (default 127.0.0.1)")(
      "port", po::value(&o.port), "port (default 3690; 0 = any free port)")(
      "api-key", po::value(&o.api_key), "require this key (Bearer); also $ZEN_API_KEY")(
      "cors", po::value(&o.cors)->multitoken()->composing(),
      "allowed browser origins (exact, or *)")("parallel", po::value(&o.parallel),
                                               "sequences decoding together per model (default 8)")(
      "queue", po::value(&o.queue), "waiting requests per model before 429 (default 64)")(
      "ctx", po::value(&o.ctx), "KV cache tokens per model, shared by its requests (default 8192)")(
      "deterministic", "seeded requests give the same text alone or under load")(
      "threads,t", po::value(&o.threads), "CPU threads")("max-body-mb", po::value(&o.max_body_mb),
                                                         "largest request body in MiB (default 8)")(
      "header-timeout", po::value(&o.header_timeout), "seconds a client has to send headers")(
      "help,h", "show this help");
  auto vm = parse(args, desc);
  if (vm.count("help") || o.models.empty()) {
    std::cout << "usage: zen-engine serve -m MODEL [-m MODEL ...] [--port N] [--host ADDR] "
                 "[--api-key K] [--parallel N] [--deterministic]\n"
              << desc;
    return vm.count("help") ? 0 : 2;
  }
  o.deterministic = vm.count("deterministic") > 0;
  o.host_given = vm.count("host") > 0;
  o.queue_given = vm.count("queue") > 0;
  if (o.port > 65535 || (vm.count("port") && o.port < 0))
    throw po::error("--port must be from 0 to 65535");

  // Signals are taken by sigwait below: block them before any thread exists, so every thread
  // inherits the mask and none of them is interrupted. Writes to closed sockets must not kill.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  const std::vector<serving::ModelSpec> specs = model_specs(o);
  auto host = make_context(global, [&](host::Config& c) {
    if (o.threads) c.cpu_threads = o.threads;
  });
  const host::ServeConfig& sc = host->config.serve;
  std::vector<serving::FrontendConfig> frontend_configs;
  for (const std::string& name : sc.frontends) {
    serving::FrontendConfig fc{name, nlohmann::json::object()};
    if (name == "http") {
      fc.config = http_config(host->config, o);
    } else if (host->config.raw.contains("frontend") &&
               host->config.raw["frontend"].contains(name)) {
      fc.config = host->config.raw["frontend"][name];
    }
    frontend_configs.push_back(std::move(fc));
  }

  serving::ModelRegistry models(*host->plugins, host->config, model_options(sc, o), specs,
                                log_line);
  serving::EngineService service(models, log_line);
  serving::Frontends frontends(*host->plugins, frontend_configs, serving::engine_api(),
                               serving::engine_handle(service));
  for (const std::string& address : frontends.addresses()) log_line("serving on " + address);
  models.start_loading();
  // A server whose every model failed has nothing to serve: stop it, exit 1.
  std::atomic<bool> all_failed{false};
  std::thread watcher([&] {
    if (models.wait_loaded() == std::optional<size_t>(0)) {
      all_failed = true;
      kill(getpid(), SIGTERM);  // process-directed: the sigwait below takes it
    }
  });

  int sig = 0;
  sigwait(&stop_signals, &sig);
  if (!all_failed)
    log_line(std::string("stopping (") + (sig == SIGINT ? "SIGINT" : "SIGTERM") + ")");
  frontends.stop();
  models.stop();
  watcher.join();
  if (all_failed) {
    log_line("no model could be loaded; exiting");
    return 1;
  }
  log_line("stopped");
  return 0;
}

}  // namespace zen::cli
