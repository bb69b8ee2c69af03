#include "quant/convert.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <thread>

#include <zen/quant_codec.hpp>

#include "gguf/text.h"
#include "types/type_traits.h"

namespace zen::quant {
namespace {

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

}  // namespace

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

bool can_quantize_to(zen_type t) {
  return has_codec(t) && t != ZEN_TYPE_Q8_1 && t != ZEN_TYPE_Q8_K;
}

std::vector<TensorPlan> plan_conversions(const gguf::File& in, const FileType& target,
                                         const RecipeOptions& recipe, bool allow_requantize,
                                         const std::string& in_label) {
  std::vector<TensorDesc> descs;
  for (const auto& t : in.tensors()) descs.push_back({t.name, t.type, t.dims()});
  std::vector<TensorPlan> plans = plan_quantization(target, model_shape(in), descs, recipe);
  if (in.find("split.count") && in.get_int<uint32_t>("split.count") > 1) {
    throw gguf::Error(in_label + ": is one part of a split model; merge the parts first");
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
    if (type_traits(t.type)->quantized && !allow_requantize) {
      throw gguf::Error(label +
                        ": the input is already quantized; requantizing loses accuracy, "
                        "pass --allow-requantize to do it anyway");
    }
  }
  return plans;
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

}  // namespace zen::quant
