// zen-engine probe [--json]: what hardware this is, what the CPU can run with OS support, which
// device plugins and devices were found, and what was chosen and why.
#include <iostream>

#include <nlohmann/json.hpp>

#include "context.h"
#include "device_selection.h"
#include <zen/cpu_features.hpp>
#include "hw/hw_report.h"
#include "hw/topology.h"
#include "options.h"
#include "plugin_report.h"

namespace zen::cli {

namespace {

// Device plugins only (including refused CPU variants, whose reasons explain the ISA choice).
bool is_device_record(const host::PluginRecord& r) {
  return r.name.empty() ? r.path.find("cpu-") != std::string::npos : r.kind == ZEN_KIND_DEVICE;
}

}  // namespace

int cmd_probe(const Args& args, const GlobalOptions& global) {
  const Output output = parse_report_options(args, "probe");
  if (output == Output::help_shown) return 0;
  auto ctx = make_context(global);
  const hw::CpuFeatures cpu = hw::detect_cpu();
  const hw::Topology topo = hw::detect_topology();
  const auto devices = host::select_devices(*ctx->plugins, ctx->config);

  if (output == Output::json) {
    nlohmann::json plugins = nlohmann::json::array();
    for (const auto& p : plugins_json(*ctx->plugins)["plugins"])
      if (p["kind"] == "device" || p["name"].get<std::string>().rfind("cpu-", 0) == 0)
        plugins.push_back(p);
    nlohmann::json out = {{"cpu", hw::to_json(cpu)},
                          {"topology", hw::to_json(topo)},
                          {"device_plugins", plugins},
                          {"devices", devices_json(devices)},
                          {"config", ctx->config.source}};
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::cout << "== CPU\n";
  hw::print_text(cpu, std::cout);
  std::cout << "\n== Topology\n";
  hw::print_text(topo, std::cout);
  std::cout << "\n== Device plugins\n";
  for (const auto& r : ctx->plugins->records()) {
    if (!is_device_record(r)) continue;
    std::cout << "  " << host::state_name(r.state) << "  "
              << (r.name.empty() ? r.path : r.display_name()) << "  score " << r.score;
    if (!r.probe_reason.empty() && r.state != host::PluginState::refused)
      std::cout << "  (" << r.probe_reason << ")";
    std::cout << "\n";
    if (!r.reason.empty()) std::cout << "      " << r.reason << "\n";
  }
  std::cout << "\n== Devices (* = chosen, in order of preference)\n";
  print_devices(devices, std::cout);
  std::cout << "\nconfig: " << (ctx->config.source.empty() ? "(defaults)" : ctx->config.source)
            << "\n";
  return 0;
}

}  // namespace zen::cli
