// zen-engine plugins [--json]: every candidate plugin, what happened to it and why.
#include <filesystem>
#include <iomanip>
#include <iostream>

#include <nlohmann/json.hpp>

#include "context.h"
#include "options.h"
#include "plugin_report.h"

namespace zen::cli {

int cmd_plugins(const Args& args, const GlobalOptions& global) {
  const Output output = parse_report_options(args, "plugins");
  if (output == Output::help_shown) return 0;
  auto ctx = make_context(global);
  if (output == Output::json) {
    std::cout << plugins_json(*ctx->plugins).dump(2) << "\n";
  } else {
    print_plugins(*ctx->plugins, std::cout);
  }
  return 0;
}

}  // namespace zen::cli
