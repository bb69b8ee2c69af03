// What most subcommands start from: the config, the host API and the plugin registry.
#pragma once

#include <functional>
#include <memory>

#include "commands.h"
#include "config.h"
#include "plugin_registry.h"

namespace zen::cli {

struct HostContext {
  host::Config config;
  std::unique_ptr<host::PluginRegistry> plugins;
};

// Load config and plugins; throws host::ConfigError for a bad config. `adjust` applies
// command-line overrides (--threads) to the config before plugins see it.
std::unique_ptr<HostContext> make_context(const GlobalOptions& global,
                                          const std::function<void(host::Config&)>& adjust = {});

}  // namespace zen::cli
