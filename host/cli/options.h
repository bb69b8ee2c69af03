// Small helpers shared by subcommands for Boost.Program_options parsing.
#pragma once

#include <charconv>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "commands.h"
#include "config.h"

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

// -t/--threads N and --device ID (repeatable, or comma-separated): where a command that runs a
// model computes. Shared by every such command.
struct ComputeFlags {
  unsigned threads = 0;  // 0: the config's, else one per physical core
  std::vector<std::string> devices;
  std::string isq;
  void add_to(po::options_description& desc) {
    desc.add_options()("threads,t", po::value(&threads),
                       "CPU threads (default: config, else physical cores)")(
        "device", po::value(&devices)->composing(),
        "device to run on, e.g. vulkan:0 or opencl:0 (repeatable, in order of preference; the "
        "CPU takes the ops they refuse)")(
        "isq", po::value(&isq), "quantize the weights as they load: Q4_K_M, Q4_K, Q8_0...");
  }
  void apply(host::Config& c) const {
    if (threads) c.cpu_threads = threads;
    if (!isq.empty()) c.isq = isq;
    host::set_devices_from_cli(c, devices);
  }
};

// "1,4,16" -> {1, 4, 16}; throws std::invalid_argument naming `flag` for an item that is not
// an integer in [lo, hi].
inline std::vector<int> parse_int_list(const std::string& list, const char* flag, int lo, int hi) {
  std::vector<int> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    int v = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || end != item.data() + item.size() || v < lo || v > hi)
      throw std::invalid_argument(std::string(flag) + ": '" + item + "' is not a number in " +
                                  std::to_string(lo) + ".." + std::to_string(hi));
    out.push_back(v);
  }
  return out;
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
