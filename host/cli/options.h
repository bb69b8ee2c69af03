// Small helpers shared by subcommands for Boost.Program_options parsing.
#pragma once

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

}  // namespace zen::cli
