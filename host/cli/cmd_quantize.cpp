// zen-engine quantize IN OUT.gguf TYPE: the options and the progress lines of
// core/quant/quantize_file.h, which does the work. IN is a GGUF or a Hugging Face directory.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <thread>

#include "context.h"
#include "gguf/text.h"
#include "hf/directory.h"
#include "loaded_model.h"
#include "options.h"
#include "quant/quantize_file.h"
#include "types/type_traits.h"

namespace zen::cli {

namespace {

struct QuantizeOptions {
  std::string in, out;
  quant::QuantizeFileOptions file;  // what quantize_file takes
};

zen_type parse_tensor_type(const std::string& name, const char* option) {
  const TypeTraits* t = type_traits_by_name(name);
  if (!t || !quant::can_quantize_to(t->type))
    throw po::error(std::string("--") + option + ": '" + name +
                    "' is not a tensor type this build can quantize to");
  return t->type;
}

std::string file_type_list() {
  std::string s;
  for (const auto& ft : quant::file_types()) s += (s.empty() ? "" : ", ") + std::string(ft.name);
  return s;
}

// Parses the command line; nullopt after --help or a usage error (exit code in `code`).
std::optional<QuantizeOptions> parse_options(const Args& args, int& code) {
  po::options_description desc("options");
  desc.add_options()                                                                          //
      ("help,h", "show this help")                                                            //
      ("threads,t", po::value<unsigned>(), "worker threads (default: all hardware threads)")  //
      ("allow-requantize", "allow re-quantizing tensors that are already quantized")          //
      ("leave-output-tensor", "keep output.weight in its input type")                         //
      ("pure", "give every quantized tensor the base type (no per-tensor mixes)")             //
      ("output-tensor-type", po::value<std::string>(), "type for output.weight")              //
      ("token-embedding-type", po::value<std::string>(), "type for token_embd.weight");
  po::options_description positionals;
  positionals.add_options()("in", po::value<std::string>())("out", po::value<std::string>())(
      "type", po::value<std::string>());
  po::options_description all;
  all.add(desc).add(positionals);
  po::positional_options_description pos;
  pos.add("in", 1).add("out", 1).add("type", 1);
  auto vm = parse(args, all, &pos);
  if (vm.count("help") || !vm.count("type")) {
    (vm.count("help") ? std::cout : std::cerr)
        << "usage: zen-engine quantize IN OUT.gguf TYPE [options] (IN: GGUF or HF directory)\n"
        << "TYPE: " << file_type_list() << "\n(see docs/QUANTIZE.md for the recipes)\n\n"
        << desc;
    code = vm.count("help") ? 0 : 2;
    return std::nullopt;
  }
  QuantizeOptions o;
  o.in = vm["in"].as<std::string>();
  o.out = vm["out"].as<std::string>();
  const std::string type = vm["type"].as<std::string>();
  o.file.target = quant::find_file_type(type);
  if (!o.file.target) throw po::error("unknown TYPE '" + type + "'; one of " + file_type_list());
  unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  o.file.threads = vm.count("threads") ? vm["threads"].as<unsigned>() : hw;
  if (o.file.threads == 0 || o.file.threads > 1024) throw po::error("--threads must be 1..1024");
  o.file.allow_requantize = vm.count("allow-requantize") > 0;
  o.file.recipe.leave_output = vm.count("leave-output-tensor") > 0;
  o.file.recipe.pure = vm.count("pure") > 0;
  if (vm.count("output-tensor-type"))
    o.file.recipe.output_type =
        parse_tensor_type(vm["output-tensor-type"].as<std::string>(), "output-tensor-type");
  if (vm.count("token-embedding-type"))
    o.file.recipe.token_embedding_type =
        parse_tensor_type(vm["token-embedding-type"].as<std::string>(), "token-embedding-type");
  return o;
}

double mib(uint64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

std::string shape_of(const gguf::TensorInfo& t) {
  std::string s;
  for (uint64_t d : t.dims()) s += (s.empty() ? "" : ", ") + std::to_string(d);
  return "[" + s + "]";
}

void print_progress(const quant::TensorWritten& w) {
  const gguf::TensorInfo& t = w.tensor;
  char line[512];
  std::snprintf(line, sizeof line, "[%4zu/%4zu] %-40s %-18s %6s -> %-6s %9.3f -> %9.3f MiB",
                w.index + 1, w.count, gguf::escape(t.name, 60).c_str(), shape_of(t).c_str(),
                std::string(type_traits(t.type)->name).c_str(),
                std::string(type_traits(w.plan.type)->name).c_str(), mib(t.n_bytes),
                mib(w.out_bytes));
  std::cout << line << (w.plan.reason.empty() ? "" : "  (" + w.plan.reason + ")") << std::endl;
}

}  // namespace

int cmd_quantize(const Args& args, const GlobalOptions& global) {
  int code = 0;
  std::optional<QuantizeOptions> o = parse_options(args, code);
  if (!o) return code;
  const auto start = std::chrono::steady_clock::now();
  const auto on_start = [&] {
    std::cout << "quantizing " << o->in << " to " << o->file.target->name << " with "
              << o->file.threads << " thread" << (o->file.threads == 1 ? "" : "s") << std::endl;
  };
  // A Hugging Face directory is read through the architecture plugin that answers to it.
  const quant::QuantizeFileResult r =
      hf::is_model_directory(o->in)
          ? quant::quantize_file(
                model::ModelFile::open(o->in, host::arch_plugins(*make_context(global)->plugins))
                    ->gguf(),
                o->in, o->out, o->file, on_start, print_progress)
          : quant::quantize_file(o->in, o->out, o->file, on_start, print_progress);
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << std::fixed << std::setprecision(2) << "tensor data " << mib(r.in_bytes) << " MiB -> "
            << mib(r.out_bytes) << " MiB; wrote " << o->out << " in " << std::setprecision(1)
            << secs << " s" << std::endl;
  return 0;
}

}  // namespace zen::cli
