// What `serve` and `mcp` share: the engine options (models, aliases, batching, context,
// threads), loading the models, starting the frontend plugins, and running until SIGINT or
// SIGTERM, then stopping frontends before engines.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config.h"
#include "options.h"
#include "serving/frontends.h"

namespace zen::cli {

struct EngineOptions {
  std::vector<std::string> models, aliases;
  unsigned parallel = 0, queue = 0, ctx = 0;
  bool deterministic = false, queue_given = false;
  std::string mcp_config;  // serve --mcp-config: MCP servers whose tools the models may call
  ComputeFlags compute;    // -t, --device
};

// -m/--model, --alias, --parallel, --queue, --ctx, --deterministic, --threads/-t, --device.
void add_engine_options(po::options_description& desc, EngineOptions& o);
// Reads the flags add_engine_options declared without a value (--deterministic, --queue).
void note_engine_flags(const po::variables_map& vm, EngineOptions& o);

// One line on stderr per event ("zen-engine: ..."), whole lines even when threads log at once.
void log_line(const std::string& line);

struct RunPlan {
  // The frontends to start, given the loaded config.
  std::function<std::vector<serving::FrontendConfig>(const host::Config&)> frontends;
  // Start the frontends only once every model has loaded (stdio clients call at once and
  // have no readiness probe); otherwise they start first and /ready tells.
  bool frontends_after_load = false;
};

// Runs the engine with its frontends until SIGINT/SIGTERM (or until every model failed to
// load: exit code 1). Blocks those signals first, so call it before any thread exists.
int run_engine(const GlobalOptions& global, const EngineOptions& o, const RunPlan& plan);

}  // namespace zen::cli
