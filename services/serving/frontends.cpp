#include "frontends.h"

#include <zen/plugin.hpp>

namespace zen::serving {

Frontends::Frontends(const host::PluginRegistry& plugins,
                     const std::vector<FrontendConfig>& configs, const zen_engine_api* api,
                     zen_engine* engine) {
  try {
    for (const FrontendConfig& c : configs) {
      const host::PluginRecord* rec = plugins.find(ZEN_KIND_FRONTEND, c.name);
      if (!rec)
        throw Error(ZEN_ERR_NOT_FOUND,
                    "no frontend plugin '" + c.name + "' is loaded (see `zen-engine plugins`)");
      const auto* table = static_cast<const zen_frontend_v1*>(rec->vtable);
      char err[512] = {0};
      zen_frontend* handle = nullptr;
      const std::string config = c.config.dump();
      const zen_status s = table->start(api, engine, config.c_str(), &handle, err, sizeof err);
      if (s != ZEN_OK || !handle)
        throw Error(
            s == ZEN_OK ? ZEN_ERR_INTERNAL : s,
            "frontend '" + c.name + "' did not start: " + (err[0] ? err : "no reason given"));
      running_.push_back({c.name, table, handle});
    }
  } catch (...) {
    stop();
    throw;
  }
}

Frontends::~Frontends() { stop(); }

std::vector<std::string> Frontends::addresses() const {
  std::vector<std::string> out;
  for (const Running& r : running_) {
    if (!ZEN_HAS_MEMBER(r.table, zen_frontend_v1, address) || !r.table->address) continue;
    char buf[512] = {0};
    if (r.table->address(r.handle, buf, sizeof buf) == ZEN_OK) out.emplace_back(buf);
  }
  return out;
}

void Frontends::stop() {
  while (!running_.empty()) {
    Running r = running_.back();
    running_.pop_back();
    r.table->stop(r.handle);
  }
}

}  // namespace zen::serving
