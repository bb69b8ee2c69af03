// Small helpers shared by subcommands for Boost.Program_options parsing.
#pragma once

#include <iostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "commands.h"
#include "config.h"
#include "text/int_list.h"

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
  std::vector<std::string> lora;
  std::vector<float> lora_scale;
  void add_to(po::options_description& desc) {
    desc.add_options()("threads,t", po::value(&threads),
                       "CPU threads (default: config, else physical cores)")(
        "device", po::value(&devices)->composing(),
        "device to run on, e.g. vulkan:0 or opencl:0 (repeatable, in order of preference; the "
        "CPU takes the ops they refuse)")(
        "isq", po::value(&isq), "quantize the weights as they load: Q4_K_M, Q4_K, Q8_0...")(
        "lora", po::value(&lora)->composing(), "LoRA adapter: GGUF file or PEFT dir (repeatable)")(
        "lora-scale", po::value(&lora_scale)->composing(), "scale of each --lora, in order (1)");
  }
  void apply(host::Config& c) const {
    if (threads) c.cpu_threads = threads;
    if (!isq.empty()) c.isq = isq;
    if (lora_scale.size() > lora.size())
      throw std::invalid_argument("--lora-scale: more scales than --lora adapters");
    for (size_t i = 0; i < lora.size(); ++i)
      c.lora.emplace_back(lora[i], i < lora_scale.size() ? lora_scale[i] : 1.0f);
    host::set_devices_from_cli(c, devices);
  }
};

using text::parse_int_list;  // "1,4,16" -> {1, 4, 16} (text/int_list.h)

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
