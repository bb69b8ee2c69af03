// zen-engine quantize IN.gguf OUT.gguf TYPE: rewrites a model with its weights in another
// type, choosing each tensor's type with llama-quantize's recipes (core/quant/recipe.h).
// Everything that can be checked is checked before any work starts; OUT is written through
// a temporary file and appears only once complete, so a failure never leaves a partial OUT.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <thread>

#include "gguf/gguf.h"
#include "gguf/text.h"
#include "gguf/writer.h"
#include "options.h"
#include "quant/codec.h"
#include "quant/recipe.h"
#include "types/type_traits.h"

namespace zen::cli {

namespace {

// GGML_QNT_VERSION: the revision of the quantized block formats these files use.
constexpr uint32_t kQuantizationVersion = 2;
// Output bytes converted per round of the worker threads: bounds memory for huge tensors.
constexpr uint64_t kChunkBytes = uint64_t{32} << 20;
// Longest row converted (each worker holds one row as floats): far above any real model's
// 1e5-1e6, low enough that a hostile file cannot make each worker allocate gigabytes.
constexpr uint64_t kMaxRowElements = uint64_t{1} << 26;

struct QuantizeOptions {
  std::string in, out;
  const quant::FileType* target = nullptr;
  quant::RecipeOptions recipe;
  unsigned threads = 1;
  bool allow_requantize = false;
};

std::string_view type_name(zen_type t) { return type_traits(t)->name; }

// Types the reference codecs can produce, except the activation-only formats.
bool can_write(zen_type t) {
  return quant::has_codec(t) && t != ZEN_TYPE_Q8_1 && t != ZEN_TYPE_Q8_K;
}

zen_type parse_tensor_type(const std::string& name, const char* option) {
  const TypeTraits* t = type_traits_by_name(name);
  if (!t || !can_write(t->type)) {
    throw po::error(std::string("--") + option + ": '" + name +
                    "' is not a tensor type this build can quantize to");
  }
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
        << "usage: zen-engine quantize IN.gguf OUT.gguf TYPE [options]\n"
        << "TYPE: " << file_type_list() << "\n(see docs/QUANTIZE.md for the recipes)\n\n"
        << desc;
    code = vm.count("help") ? 0 : 2;
    return std::nullopt;
  }
  QuantizeOptions o;
  o.in = vm["in"].as<std::string>();
  o.out = vm["out"].as<std::string>();
  const std::string type = vm["type"].as<std::string>();
  o.target = quant::find_file_type(type);
  if (!o.target) throw po::error("unknown TYPE '" + type + "'; one of " + file_type_list());
  unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  o.threads = vm.count("threads") ? vm["threads"].as<unsigned>() : hw;
  if (o.threads == 0 || o.threads > 1024) throw po::error("--threads must be 1..1024");
  o.allow_requantize = vm.count("allow-requantize") > 0;
  o.recipe.leave_output = vm.count("leave-output-tensor") > 0;
  o.recipe.pure = vm.count("pure") > 0;
  if (vm.count("output-tensor-type")) {
    o.recipe.output_type =
        parse_tensor_type(vm["output-tensor-type"].as<std::string>(), "output-tensor-type");
  }
  if (vm.count("token-embedding-type")) {
    o.recipe.token_embedding_type =
        parse_tensor_type(vm["token-embedding-type"].as<std::string>(), "token-embedding-type");
  }
  return o;
}

// An integer hyperparameter, or the first entry of a per-layer array of them.
uint32_t hparam(const gguf::File& f, const std::string& key) {
  const gguf::Value* v = f.find(key);
  if (!v) return 0;
  try {
    if (v->is_array()) {
      const gguf::Array& a = v->as_array();
      return a.empty() ? 0 : a.int_at<uint32_t>(0);
    }
    return v->as_int<uint32_t>();
  } catch (const gguf::Error& e) {
    throw gguf::Error("metadata key " + gguf::quote(key) + ": " + e.what());
  }
}

quant::ModelShape model_shape(const gguf::File& f) {
  quant::ModelShape m;
  if (const gguf::Value* arch = f.find("general.architecture")) m.arch = arch->as_string();
  const std::string p = m.arch + ".";
  m.n_layer = hparam(f, p + "block_count");
  m.n_head = hparam(f, p + "attention.head_count");
  m.n_head_kv = hparam(f, p + "attention.head_count_kv");
  if (!m.n_head_kv) m.n_head_kv = m.n_head;
  m.n_expert = hparam(f, p + "expert_count");
  return m;
}

// Refuses, before anything is written, every conversion that could not be done.
void check_plan(const gguf::File& in, const std::vector<quant::TensorPlan>& plans,
                const QuantizeOptions& o) {
  if (o.in != o.out && std::filesystem::is_directory(o.out)) {
    throw gguf::Error(o.out + ": is a directory");
  }
  if (in.find("split.count") && in.get_int<uint32_t>("split.count") > 1) {
    throw gguf::Error(o.in + ": is one part of a split model; merge the parts first");
  }
  for (size_t i = 0; i < plans.size(); ++i) {
    const gguf::TensorInfo& t = in.tensors()[i];
    const zen_type to = plans[i].type;
    if (to == t.type) continue;
    const std::string label = "tensor " + gguf::quote(t.name) + " (" +
                              std::string(type_name(t.type)) + " -> " + std::string(type_name(to)) +
                              ")";
    if (!quant::has_dequantize(t.type)) {
      throw gguf::Error(label + ": cannot convert from " + std::string(type_name(t.type)));
    }
    if (t.ne[0] > kMaxRowElements) {
      throw gguf::Error(label + ": rows of " + std::to_string(t.ne[0]) +
                        " elements are longer than the " + std::to_string(kMaxRowElements) +
                        " this converts");
    }
    if (!can_write(to)) {
      throw gguf::Error(label + ": cannot quantize to " + std::string(type_name(to)));
    }
    if (type_traits(t.type)->quantized && !o.allow_requantize) {
      throw gguf::Error(label +
                        ": the input is already quantized; requantizing loses accuracy, "
                        "pass --allow-requantize to do it anyway");
    }
  }
}

// Converts rows [first, first + n) of `t` to `to` into `dst`, with `threads` workers taking
// rows from a shared counter. Non-finite input values are refused: they would poison whole
// blocks of the output.
void convert_rows(const gguf::TensorInfo& t, zen_type to, uint64_t first, uint64_t n, uint8_t* dst,
                  unsigned threads) {
  const int64_t per_row = static_cast<int64_t>(t.ne[0]);
  const uint64_t in_row = t.n_bytes / (t.n_elements / t.ne[0]);
  const uint64_t out_row = quant::row_bytes(to, per_row);
  std::atomic<uint64_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    std::vector<float> row(static_cast<size_t>(per_row));
    try {
      for (uint64_t r; (r = next.fetch_add(1)) < n;) {
        const uint64_t src_row = first + r;
        quant::dequantize_row(t.type, t.data + src_row * in_row, row.data(), per_row);
        auto bad = std::find_if(row.begin(), row.end(), [](float x) { return !std::isfinite(x); });
        if (bad != row.end()) {
          throw gguf::Error("tensor " + gguf::quote(t.name) + " has a non-finite value (" +
                            std::to_string(*bad) + ") in row " + std::to_string(src_row));
        }
        quant::quantize_row(to, row.data(), dst + r * out_row, per_row);
      }
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
      next = n;  // stop the others
    }
  };
  const unsigned n_workers = static_cast<unsigned>(std::min<uint64_t>(threads, n));
  std::vector<std::jthread> workers;
  for (unsigned i = 1; i < n_workers; ++i) workers.emplace_back(work);
  work();
  workers.clear();  // joins
  if (error) std::rethrow_exception(error);
}

// Streams tensor `t` converted to `to` into the writer, a chunk of rows at a time.
void convert_tensor(const gguf::TensorInfo& t, zen_type to, unsigned threads, gguf::Writer& out) {
  const uint64_t rows = t.n_elements / t.ne[0];
  const uint64_t out_row = quant::row_bytes(to, static_cast<int64_t>(t.ne[0]));
  const uint64_t rows_per_chunk = std::max<uint64_t>(1, kChunkBytes / out_row);
  std::vector<uint8_t> buf(std::min(rows, rows_per_chunk) * out_row);
  for (uint64_t first = 0; first < rows; first += rows_per_chunk) {
    const uint64_t n = std::min(rows_per_chunk, rows - first);
    convert_rows(t, to, first, n, buf.data(), threads);
    out.write({buf.data(), n * out_row});
  }
}

double mib(uint64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

std::string shape_of(const gguf::TensorInfo& t) {
  std::string s;
  for (uint64_t d : t.dims()) s += (s.empty() ? "" : ", ") + std::to_string(d);
  return "[" + s + "]";
}

void print_progress(size_t i, size_t n, const gguf::TensorInfo& t, const quant::TensorPlan& p,
                    uint64_t out_bytes) {
  char line[512];
  std::snprintf(line, sizeof line, "[%4zu/%4zu] %-40s %-18s %6s -> %-6s %9.3f -> %9.3f MiB", i + 1,
                n, gguf::escape(t.name, 60).c_str(), shape_of(t).c_str(),
                std::string(type_name(t.type)).c_str(), std::string(type_name(p.type)).c_str(),
                mib(t.n_bytes), mib(out_bytes));
  std::cout << line;
  if (!p.reason.empty()) std::cout << "  (" << p.reason << ")";
  std::cout << std::endl;
}

}  // namespace

int cmd_quantize(const Args& args, const GlobalOptions&) {
  int code = 0;
  std::optional<QuantizeOptions> o = parse_options(args, code);
  if (!o) return code;
  const auto start = std::chrono::steady_clock::now();

  gguf::File in = gguf::File::open(o->in);
  std::vector<quant::TensorDesc> descs;
  for (const auto& t : in.tensors()) descs.push_back({t.name, t.type, t.dims()});
  const auto plans = quant::plan_quantization(*o->target, model_shape(in), descs, o->recipe);
  check_plan(in, plans, *o);

  gguf::Writer out(o->out);
  for (const auto& kv : in.metadata()) out.set(kv.key, kv.value);
  for (const char* key : {"split.no", "split.count", "split.tensors.count"}) out.remove(key);
  out.set("general.quantization_version", gguf::value_of(kQuantizationVersion));
  out.set("general.file_type", gguf::value_of(o->target->id));
  std::vector<uint64_t> sizes;
  for (size_t i = 0; i < plans.size(); ++i) {
    const auto& t = in.tensors()[i];
    sizes.push_back(out.add_tensor(t.name, plans[i].type, t.dims()));
  }
  out.begin_data();  // creates the temporary file now, so an unwritable OUT fails early

  std::cout << "quantizing " << o->in << " to " << o->target->name << " with " << o->threads
            << " thread" << (o->threads == 1 ? "" : "s") << std::endl;
  uint64_t in_total = 0, out_total = 0;
  for (size_t i = 0; i < plans.size(); ++i) {
    const auto& t = in.tensors()[i];
    if (plans[i].type == t.type) {
      out.write(t.bytes());
    } else {
      convert_tensor(t, plans[i].type, o->threads, out);
    }
    print_progress(i, plans.size(), t, plans[i], sizes[i]);
    in_total += t.n_bytes;
    out_total += sizes[i];
  }
  out.finish();
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << std::fixed << std::setprecision(2) << "tensor data " << mib(in_total) << " MiB -> "
            << mib(out_total) << " MiB; wrote " << o->out << " in " << std::setprecision(1) << secs
            << " s" << std::endl;
  return 0;
}

}  // namespace zen::cli
