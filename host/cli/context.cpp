#include "context.h"

#include "host_api.h"
#include "services.h"

namespace zen::cli {

std::unique_ptr<HostContext> make_context(const GlobalOptions& global,
                                          const std::function<void(host::Config&)>& adjust) {
  auto ctx = std::make_unique<HostContext>();
  ctx->config = host::load_config(global.config_path);
  if (adjust) adjust(ctx->config);
  host::set_log_level(host::parse_log_level(ctx->config.log_level));
  host::register_core_services();
  ctx->plugins = std::make_unique<host::PluginRegistry>(ctx->config, host::host_api(ctx->config));
  return ctx;
}

}  // namespace zen::cli
