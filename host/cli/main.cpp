// zen-engine: the command-line entry point. Global options come before the subcommand.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <string>

#include "commands.h"
#include "config.h"
#include "options.h"

namespace {

using Command = int (*)(const zen::cli::Args&, const zen::cli::GlobalOptions&);

struct CommandInfo {
  Command run;
  const char* help;
};

const std::map<std::string, CommandInfo>& commands() {
  static const std::map<std::string, CommandInfo> table = {
      {"plugins", {zen::cli::cmd_plugins, "list plugins found, loaded and refused (--json)"}},
      {"probe", {zen::cli::cmd_probe, "show hardware, ISA, devices and what was chosen (--json)"}},
      {"inspect", {zen::cli::cmd_inspect, "show a GGUF file's metadata and tensors (--json)"}},
      {"quantize",
       {zen::cli::cmd_quantize, "rewrite a GGUF with its weights quantized (Q4_K_M, ...)"}},
      {"bench", {zen::cli::cmd_bench, "prompt and generation speed in tokens/s (--json)"}},
      {"run", {zen::cli::cmd_run, "answer a prompt, or chat interactively without one"}},
      {"embed", {zen::cli::cmd_embed, "pooled vectors of texts from an encoder model (--json)"}},
      {"perplexity", {zen::cli::cmd_perplexity, "perplexity of a text file (--logits-out)"}},
      {"serve", {zen::cli::cmd_serve, "serve models over the OpenAI-compatible HTTP API"}},
      {"mcp", {zen::cli::cmd_mcp, "serve models as MCP tools over stdin/stdout"}},
      {"pull", {zen::cli::cmd_pull, "fetch a model into the store (path, URL, hf://, ollama://)"}},
      {"list", {zen::cli::cmd_list, "list the models in the store"}},
      {"rm", {zen::cli::cmd_rm, "remove a model from the store"}},
  };
  return table;
}

void usage(std::ostream& out) {
  out << "usage: zen-engine [--config FILE] <command> [options]\n\ncommands:\n";
  for (const auto& [name, info] : commands()) {
    out << "  " << name << std::string(10 - std::min<size_t>(name.size(), 9), ' ') << info.help
        << "\n";
  }
  out << "\nRun 'zen-engine <command> --help' for a command's options.\n"
         "Environment: ZEN_CONFIG (config file), ZEN_PLUGIN_PATH (extra plugin dirs, "
         "':'-separated),\n"
         "             ZEN_CPU_VARIANT (force a CPU variant).\n";
}

}  // namespace

int main(int argc, char** argv) {
  zen::cli::GlobalOptions global;
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--config" && i + 1 < argc) {
      global.config_path = argv[++i];
    } else if (a.rfind("--config=", 0) == 0) {
      global.config_path = a.substr(9);
    } else if (a == "-h" || a == "--help") {
      usage(std::cout);
      return 0;
    } else if (a == "--version") {
      std::cout << "zen-engine " << ZEN_VERSION << "\n";
      return 0;
    } else {
      break;
    }
  }
  if (i >= argc) {
    usage(std::cerr);
    return 2;
  }
  auto it = commands().find(argv[i]);
  if (it == commands().end()) {
    std::cerr << "zen-engine: unknown command '" << argv[i] << "'\n";
    usage(std::cerr);
    return 2;
  }
  zen::cli::Args args(argv + i + 1, argv + argc);
  try {
    return it->second.run(args, global);
  } catch (const zen::host::ConfigError& e) {
    std::cerr << "zen-engine: config error: " << e.what() << "\n";
    return 1;
  } catch (const boost::program_options::error& e) {
    std::cerr << "zen-engine " << argv[i] << ": " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "zen-engine " << argv[i] << ": " << e.what() << "\n";
    return 1;
  }
}
