// What most subcommands start from: the config, the host API and the plugin registry.
#pragma once

#include <memory>

#include "commands.h"
#include "config.h"
#include "plugin_registry.h"

namespace zen::cli {

struct HostContext {
  host::Config config;
  std::unique_ptr<host::PluginRegistry> plugins;
};

// Load config and plugins; throws host::ConfigError for a bad config.
std::unique_ptr<HostContext> make_context(const GlobalOptions& global);

}  // namespace zen::cli
