#include "quant/quantize_file.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "gguf/text.h"
#include "gguf/writer.h"
#include <zen/quant_codec.hpp>
#include "types/type_traits.h"

namespace zen::quant {
namespace {

// GGML_QNT_VERSION: the revision of the quantized block formats these files use.
constexpr uint32_t kQuantizationVersion = 2;
// Output bytes converted per round of the worker threads: bounds memory for huge tensors.
constexpr uint64_t kChunkBytes = uint64_t{32} << 20;
// Longest row converted (each worker holds one row as floats): far above any real model's
// 1e5-1e6, low enough that a hostile file cannot make each worker allocate gigabytes.
constexpr uint64_t kMaxRowElements = uint64_t{1} << 26;

std::string_view type_name(zen_type t) { return type_traits(t)->name; }

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

ModelShape model_shape(const gguf::File& f) {
  ModelShape m;
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
void check_plan(const gguf::File& in, const std::vector<TensorPlan>& plans,
                const std::string& in_path, const std::string& out_path,
                const QuantizeFileOptions& o) {
  if (in_path != out_path && std::filesystem::is_directory(out_path)) {
    throw gguf::Error(out_path + ": is a directory");
  }
  if (in.find("split.count") && in.get_int<uint32_t>("split.count") > 1) {
    throw gguf::Error(in_path + ": is one part of a split model; merge the parts first");
  }
  for (size_t i = 0; i < plans.size(); ++i) {
    const gguf::TensorInfo& t = in.tensors()[i];
    const zen_type to = plans[i].type;
    if (to == t.type) continue;
    const std::string label = "tensor " + gguf::quote(t.name) + " (" +
                              std::string(type_name(t.type)) + " -> " + std::string(type_name(to)) +
                              ")";
    if (!has_dequantize(t.type)) {
      throw gguf::Error(label + ": cannot convert from " + std::string(type_name(t.type)));
    }
    if (t.ne[0] > kMaxRowElements) {
      throw gguf::Error(label + ": rows of " + std::to_string(t.ne[0]) +
                        " elements are longer than the " + std::to_string(kMaxRowElements) +
                        " this converts");
    }
    if (!can_quantize_to(to)) {
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
  const uint64_t out_row = row_bytes(to, per_row);
  std::atomic<uint64_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    std::vector<float> row(static_cast<size_t>(per_row));
    try {
      for (uint64_t r; (r = next.fetch_add(1)) < n;) {
        const uint64_t src_row = first + r;
        dequantize_row(t.type, t.data + src_row * in_row, row.data(), per_row);
        auto bad = std::find_if(row.begin(), row.end(), [](float x) { return !std::isfinite(x); });
        if (bad != row.end()) {
          throw gguf::Error("tensor " + gguf::quote(t.name) + " has a non-finite value (" +
                            std::to_string(*bad) + ") in row " + std::to_string(src_row));
        }
        quantize_row(to, row.data(), dst + r * out_row, per_row);
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
  const uint64_t out_row = row_bytes(to, static_cast<int64_t>(t.ne[0]));
  const uint64_t rows_per_chunk = std::max<uint64_t>(1, kChunkBytes / out_row);
  std::vector<uint8_t> buf(std::min(rows, rows_per_chunk) * out_row);
  for (uint64_t first = 0; first < rows; first += rows_per_chunk) {
    const uint64_t n = std::min(rows_per_chunk, rows - first);
    convert_rows(t, to, first, n, buf.data(), threads);
    out.write({buf.data(), n * out_row});
  }
}

}  // namespace

bool can_quantize_to(zen_type t) {
  return has_codec(t) && t != ZEN_TYPE_Q8_1 && t != ZEN_TYPE_Q8_K;
}

QuantizeFileResult quantize_file(const std::string& in_path, const std::string& out_path,
                                 const QuantizeFileOptions& o, const QuantizeStart& on_start,
                                 const QuantizeProgress& on_tensor) {
  gguf::File in = gguf::File::open(in_path);
  std::vector<TensorDesc> descs;
  for (const auto& t : in.tensors()) descs.push_back({t.name, t.type, t.dims()});
  const auto plans = plan_quantization(*o.target, model_shape(in), descs, o.recipe);
  check_plan(in, plans, in_path, out_path, o);

  gguf::Writer out(out_path);
  for (const auto& kv : in.metadata()) out.set(kv.key, kv.value);
  for (const char* key : {"split.no", "split.count", "split.tensors.count"}) out.remove(key);
  out.set("general.quantization_version", gguf::value_of(kQuantizationVersion));
  out.set("general.file_type", gguf::value_of(o.target->id));
  std::vector<uint64_t> sizes;
  for (size_t i = 0; i < plans.size(); ++i) {
    const auto& t = in.tensors()[i];
    sizes.push_back(out.add_tensor(t.name, plans[i].type, t.dims()));
  }
  out.begin_data();  // creates the temporary file now, so an unwritable OUT fails early
  if (on_start) on_start();

  QuantizeFileResult r;
  for (size_t i = 0; i < plans.size(); ++i) {
    const auto& t = in.tensors()[i];
    if (plans[i].type == t.type)
      out.write(t.bytes());
    else
      convert_tensor(t, plans[i].type, o.threads, out);
    if (on_tensor) on_tensor({i, plans.size(), t, plans[i], sizes[i]});
    r.in_bytes += t.n_bytes;
    r.out_bytes += sizes[i];
  }
  out.finish();
  return r;
}

}  // namespace zen::quant
