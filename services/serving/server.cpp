#include "server.h"

#include <algorithm>
#include <filesystem>

#include "c_api.h"
#include "mcp/tool_hub.h"

namespace zen::serving {

ModelOptions model_options(const host::ServeConfig& s) {
  ModelOptions m;
  m.n_ctx = s.ctx;
  m.engine.deterministic = s.deterministic;
  // Auto: the sequences running together are as many as the KV cache admits (the engine admits
  // a request only when the blocks its prompt needs are free), as llama-server's and vLLM's do.
  m.engine.max_running = s.parallel ? s.parallel : host::kAutoParallel;
  m.engine.max_queued = s.queue;
  m.engine.prefill_chunk = s.prefill_chunk;
  m.engine.prefill_while_decoding = s.prefill_while_decoding;
  // Room for one decode token per running sequence and at least one prompt token.
  m.engine.max_batch_tokens = std::max(s.max_batch_tokens, m.engine.max_running + 1);
  return m;
}

Server::Server(const host::PluginRegistry& plugins, const host::Config& config,
               const host::ServeConfig& serve, std::vector<ModelSpec> models,
               std::vector<FrontendConfig> frontends, bool after_load, LogFn log)
    : plugins_(plugins),
      frontend_configs_(std::move(frontends)),
      after_load_(after_load),
      log_(std::move(log)),
      models_(plugins, config, model_options(serve), std::move(models), log_),
      service_(models_, log_) {
  if (!serve.mcp_config.empty())
    service_.set_tool_hub(mcp::ToolHub::start(std::filesystem::path(serve.mcp_config), log_));
}

Server::~Server() { stop(); }

void Server::start_frontends() {
  frontends_.emplace(plugins_, frontend_configs_, engine_api(), engine_handle(service_));
  for (const std::string& address : frontends_->addresses()) log_("serving on " + address);
}

bool Server::start(std::function<void()> all_failed) {
  if (after_load_) {
    models_.start_loading();
    if (models_.wait_loaded() == std::optional<size_t>(0)) {
      models_.stop();
      return false;
    }
    start_frontends();
    return true;
  }
  start_frontends();  // first, so /health and /ready answer while the models load
  models_.start_loading();
  // A server whose every model failed has nothing to serve: the caller stops it.
  watcher_ = std::thread([this, all_failed = std::move(all_failed)] {
    if (models_.wait_loaded() == std::optional<size_t>(0)) all_failed();
  });
  return true;
}

void Server::stop() {
  frontends_.reset();
  models_.stop();
  if (watcher_.joinable()) watcher_.join();
}

}  // namespace zen::serving
