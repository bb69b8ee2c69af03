// zen-engine subcommands. Each parses its own options from `args` (everything after the
// subcommand name) and returns the process exit code.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace zen::cli {

struct GlobalOptions {
  std::optional<std::string> config_path;  // --config
};

using Args = std::vector<std::string>;

int cmd_plugins(const Args& args, const GlobalOptions& global);
int cmd_probe(const Args& args, const GlobalOptions& global);
int cmd_inspect(const Args& args, const GlobalOptions& global);
int cmd_quantize(const Args& args, const GlobalOptions& global);
int cmd_bench(const Args& args, const GlobalOptions& global);
int cmd_run(const Args& args, const GlobalOptions& global);
int cmd_perplexity(const Args& args, const GlobalOptions& global);
int cmd_embed(const Args& args, const GlobalOptions& global);
int cmd_serve(const Args& args, const GlobalOptions& global);
int cmd_mcp(const Args& args, const GlobalOptions& global);
int cmd_pull(const Args& args, const GlobalOptions& global);
int cmd_list(const Args& args, const GlobalOptions& global);
int cmd_rm(const Args& args, const GlobalOptions& global);

}  // namespace zen::cli
