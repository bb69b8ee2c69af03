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
  po::options_description desc("zen-engine plugins options");
  desc.add_options()("json", "print JSON")("help,h", "show this help");
  auto vm = parse(args, desc);
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  auto ctx = make_context(global);
  if (vm.count("json")) {
    std::cout << plugins_json(*ctx->plugins).dump(2) << "\n";
  } else {
    print_plugins(*ctx->plugins, std::cout);
  }
  return 0;
}

}  // namespace zen::cli
