// A running server: the served models (loaded on a thread of their own), the engine service
// with its MCP tool hub, and the frontend plugins over it, started in the order a command asks
// and stopped frontends first. What `serve` and `mcp` run; the CLI keeps the flags and signals.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "config.h"
#include "engine_service.h"
#include "frontends.h"
#include "model_registry.h"

namespace zen::serving {

// The engines' options from the serve config (flags already applied to it).
ModelOptions model_options(const host::ServeConfig& s);

class Server {
 public:
  // `after_load`: start the frontends only once every model has loaded (stdio clients call at
  // once and have no readiness probe); otherwise they start first and /ready tells.
  Server(const host::PluginRegistry& plugins, const host::Config& config,
         const host::ServeConfig& serve, std::vector<ModelSpec> models,
         std::vector<FrontendConfig> frontends, bool after_load, LogFn log);
  ~Server();  // stop()
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Starts loading and the frontends. False when the frontends waited for the models and
  // every model failed (nothing runs then); otherwise `all_failed` is called, from a thread of
  // the server's, if every model fails to load later.
  bool start(std::function<void()> all_failed);
  // Frontends first (listeners close, requests are cancelled), then the engines.
  void stop();

 private:
  void start_frontends();

  const host::PluginRegistry& plugins_;
  std::vector<FrontendConfig> frontend_configs_;
  bool after_load_;
  LogFn log_;
  ModelRegistry models_;
  EngineService service_;
  std::optional<Frontends> frontends_;
  std::thread watcher_;
};

}  // namespace zen::serving
