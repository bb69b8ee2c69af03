// Small helpers shared by subcommands for Boost.Program_options parsing.
#pragma once

#include <iostream>
#include <string>

#include <boost/program_options.hpp>

#include "commands.h"

namespace zen::cli {

namespace po = boost::program_options;

// Parse `args` against `desc` (+ positional), rejecting unknown options with a clear error.
inline po::variables_map parse(const Args& args, const po::options_description& desc,
                               const po::positional_options_description* positional = nullptr) {
  po::variables_map vm;
  auto parser = po::command_line_parser(args).options(desc);
  if (positional) parser.positional(*positional);
  po::store(parser.run(), vm);
  po::notify(vm);
  return vm;
}

enum class Output { text, json, help_shown };

// The options every report command shares: --json and --help (which prints the help).
inline Output parse_report_options(const Args& args, const char* command) {
  po::options_description desc(std::string("zen-engine ") + command + " options");
  desc.add_options()("json", "print JSON")("help,h", "show this help");
  auto vm = parse(args, desc);
  if (vm.count("help")) {
    std::cout << desc;
    return Output::help_shown;
  }
  return vm.count("json") ? Output::json : Output::text;
}

}  // namespace zen::cli
