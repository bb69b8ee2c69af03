// zen-engine mcp -m MODEL [-m ...]: Zen Engine as an MCP server on stdin/stdout, the way MCP
// clients (editors, agents) launch local servers. Only the mcp frontend runs, in stdio mode;
// it starts once the models are loaded. stdout carries protocol messages and nothing else:
// fd 1 is pointed at stderr and the plugin writes to a duplicate of the real stdout, so no
// stray print anywhere in the process can corrupt the stream. When the client closes stdin
// the plugin raises SIGTERM and the process exits 0.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "serve_runtime.h"

namespace zen::cli {

int cmd_mcp(const Args& args, const GlobalOptions& global) {
  EngineOptions o;
  po::options_description desc("zen-engine mcp options");
  add_engine_options(desc, o);
  desc.add_options()("help,h", "show this help");
  auto vm = parse(args, desc);
  if (vm.count("help") || o.models.empty()) {
    (vm.count("help") ? std::cout : std::cerr)
        << "usage: zen-engine mcp -m MODEL [-m MODEL ...] [--threads N] [--ctx N]\n"
           "Serves the models as MCP tools (chat, complete, list_models, tokenize) over\n"
           "newline-delimited JSON-RPC on stdin/stdout; logs go to stderr.\n"
        << desc;
    return vm.count("help") ? 0 : 2;
  }
  note_engine_flags(vm, o);

  std::fflush(stdout);
  const int protocol_fd = dup(STDOUT_FILENO);
  if (protocol_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    std::perror("zen-engine mcp: cannot set up stdout");
    return 1;
  }
  RunPlan plan;
  plan.frontends_after_load = true;
  plan.frontends = [&](const host::Config& config) {
    nlohmann::json c = nlohmann::json::object();
    if (config.raw.contains("frontend") && config.raw["frontend"].contains("mcp"))
      c = config.raw["frontend"]["mcp"];
    c["transport"] = "stdio";
    c["output_fd"] = protocol_fd;
    std::vector<serving::FrontendConfig> configs;
    configs.push_back({"mcp", std::move(c)});
    return configs;
  };
  const int status = run_engine(global, o, plan);
  close(protocol_fd);
  return status;
}

}  // namespace zen::cli
