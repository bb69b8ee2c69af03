// Header-only C++ side of architecture plugins: typed, checked access to a model's metadata and
// tensors (zen::ModelInfo), and ZEN_EXPORT_ARCH, which turns an ordinary class into the C
// zen_arch_v1 table:
//
//   class Qwen3 {
//    public:
//     static constexpr const char* kNames[] = {"qwen3", "Qwen3ForCausalLM"};
//     explicit Qwen3(const zen::ModelInfo& m);              // read hparams, check tensors
//     void build(zen::Graph& g, const zen_batch& b) const;  // the forward pass
//     zen::CacheRows cache_rows(uint32_t layer) const;      // per-layer KV row widths
//     uint32_t n_layers() const;
//   };
//   ZEN_EXPORT_ARCH(Qwen3, "qwen3", "0.1.0")
//
// An encoder (pooled embeddings, no KV cache) declares
//     static constexpr zen_model_kind kKind = ZEN_MODEL_ENCODER;
// and leaves out cache_rows and n_layers; sdk/examples/mean_pooled_encoder is one. A pipeline
// declares kKind = ZEN_MODEL_PIPELINE, the tasks it answers (static constexpr uint32_t kTasks =
// ZEN_TASK_IMAGE) and `void run(const zen_pipeline_call& call) const`, which drives its
// sub-models with zen::Stage (zen/pipeline.hpp); build() then makes the graph of b.stage.
//
// A plugin that loads Hugging Face directories declares how their names map onto its own
// (zen/arch.h, ABI 1.6):
//     static constexpr auto kHfKeys = std::to_array<zen_hf_key>({{"{arch}.block_count",
//                                                                 "num_hidden_layers",
//                                                                 ZEN_HP_U32}});
//     static constexpr auto kHfTensors = std::to_array<zen_hf_tensor>({...});
//     static constexpr zen_hf_map kHf = zen::hf_map(kHfKeys, kHfTensors);
// zen::concat joins a family's shared rows with a plugin's own.
//
// Constructors and build() throw zen::Error; the wrappers turn that into a status and the
// one-line message the host prints.
#pragma once

#include <zen/arch.h>
#include <zen/graph.hpp>
#include <zen/plugin.hpp>

#include <array>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <string>

namespace zen {

struct CacheRows {
  uint32_t k = 0, v = 0;  // elements per cached token; 0 = the layer keeps no cache
};

class ModelInfo {
 public:
  using Dims = std::array<int64_t, ZEN_MAX_DIMS>;

  explicit ModelInfo(const zen_model* m)
      : m_(m), api_(Host::service<zen_model_api>(ZEN_MODEL_API_NAME, 1)) {
    if (!m_ || !api_) throw Error(ZEN_ERR_ABI, "the host offers no model API (ABI 1.1)");
    const char* a = nullptr;
    arch_ = api_->get_str(m_, "general.architecture", &a) && a ? a : "";
  }

  const std::string& arch() const { return arch_; }

  // Required hyperparameters: a missing key is an error naming it. Keys may start with
  // "{arch}", replaced by general.architecture.
  uint32_t u32(const char* key) const {
    uint32_t v = 0;
    if (!api_->get_u32(m_, key, &v)) missing(key, "an unsigned integer");
    return v;
  }
  float f32(const char* key) const {
    float v = 0;
    if (!api_->get_f32(m_, key, &v)) missing(key, "a number");
    return v;
  }
  // Optional ones, with their default.
  uint32_t u32(const char* key, uint32_t fallback) const {
    uint32_t v = 0;
    return api_->get_u32(m_, key, &v) ? v : fallback;
  }
  float f32(const char* key, float fallback) const {
    float v = 0;
    return api_->get_f32(m_, key, &v) ? v : fallback;
  }
  bool flag(const char* key, bool fallback) const {
    int v = 0;
    return api_->get_bool(m_, key, &v) ? v != 0 : fallback;
  }
  std::string str(const char* key, const std::string& fallback) const {
    const char* v = nullptr;
    return api_->get_str(m_, key, &v) && v ? v : fallback;
  }
  // Element i of a numeric array key, or fallback when absent.
  float array_f32(const char* key, uint64_t i, float fallback) const {
    float v = 0;
    return api_->get_array_f32(m_, key, i, &v) ? v : fallback;
  }
  bool has_tensor(const std::string& name) const {
    return api_->tensor(m_, name.c_str(), nullptr, nullptr, nullptr) != 0;
  }
  // The tensor must exist with exactly this shape (ne[0] first, trailing 1s may be omitted).
  void expect(const std::string& name, std::initializer_list<int64_t> ne) const {
    if (!check(name, ne, true)) missing_tensor(name, ne);
  }
  // An optional tensor: false when absent, an error when present with another shape.
  bool optional(const std::string& name, std::initializer_list<int64_t> ne) const {
    return check(name, ne, false);
  }
  Dims shape(const std::string& name) const {
    Dims d{1, 1, 1, 1};
    uint32_t type = 0, n = 0;
    if (!api_->tensor(m_, name.c_str(), &type, &n, d.data()))
      throw Error(ZEN_ERR_NOT_FOUND, "tensor '" + name + "' is missing from the model");
    return d;
  }

 private:
  [[noreturn]] void missing(const char* key, const char* what) const {
    std::string k = key;
    if (k.rfind("{arch}", 0) == 0) k = arch_ + k.substr(6);
    throw Error(ZEN_ERR_NOT_FOUND,
                "hyperparameter '" + k + "' is missing or not " + std::string(what));
  }
  static std::string fmt(const Dims& d) {
    int n = ZEN_MAX_DIMS;
    while (n > 1 && d[n - 1] == 1) --n;
    std::string s = "[";
    for (int i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(d[i]);
    return s + "]";
  }
  static Dims dims(std::initializer_list<int64_t> ne) {
    Dims d{1, 1, 1, 1};
    size_t i = 0;
    for (int64_t x : ne)
      if (i < d.size()) d[i++] = x;
    return d;
  }
  bool check(const std::string& name, std::initializer_list<int64_t> ne, bool required) const {
    Dims have{1, 1, 1, 1};
    uint32_t type = 0, n = 0;
    if (!api_->tensor(m_, name.c_str(), &type, &n, have.data())) {
      if (required) missing_tensor(name, ne);
      return false;
    }
    const Dims want = dims(ne);
    if (have != want)
      throw Error(ZEN_ERR_INVALID_ARG,
                  "tensor '" + name + "' has shape " + fmt(have) + ", expected " + fmt(want));
    return true;
  }
  [[noreturn]] void missing_tensor(const std::string& name,
                                   std::initializer_list<int64_t> ne) const {
    throw Error(ZEN_ERR_NOT_FOUND,
                "tensor '" + name + "' " + fmt(dims(ne)) + " is missing from the model");
  }

  const zen_model* m_;
  const zen_model_api* api_;
  std::string arch_;
};

// Two constexpr row tables as one (a family's shared Hugging Face rows and a plugin's own).
template <class T, size_t A, size_t B>
constexpr std::array<T, A + B> concat(const std::array<T, A>& a, const std::array<T, B>& b) {
  std::array<T, A + B> out{};
  for (size_t i = 0; i < A; ++i) out[i] = a[i];
  for (size_t i = 0; i < B; ++i) out[A + i] = b[i];
  return out;
}

template <size_t K, size_t T>
constexpr zen_hf_map hf_map(const std::array<zen_hf_key, K>& keys,
                            const std::array<zen_hf_tensor, T>& tensors) {
  return zen_hf_map{ZEN_HDR_INIT(zen_hf_map), keys.data(), static_cast<uint32_t>(K), tensors.data(),
                    static_cast<uint32_t>(T)};
}

// "blk.3.attn_q.weight"
inline std::string layer_tensor(uint32_t il, const char* suffix) {
  return "blk." + std::to_string(il) + "." + suffix;
}

namespace detail {

template <class Impl>
struct ArchTable {
  static zen_status load(const zen_model* model, zen_arch_model** out, char* err, size_t len) {
    std::string why;
    zen_status st = guarded(why, [&] {
      if (!out) throw Error(ZEN_ERR_INVALID_ARG, "load: NULL out");
      *out = reinterpret_cast<zen_arch_model*>(new Impl(ModelInfo(model)));
    });
    write_reason(err, len, why);
    return st;
  }
  static void unload(zen_arch_model* am) { delete reinterpret_cast<Impl*>(am); }
  static zen_status build_graph(zen_arch_model* am, zen_graph_builder* b, const zen_batch* batch,
                                char* err, size_t len) {
    std::string why;
    zen_status st = guarded(why, [&] {
      if (!am || !batch) throw Error(ZEN_ERR_INVALID_ARG, "build_graph: NULL model or batch");
      Graph g(Host::service<zen_graph_api>(ZEN_GRAPH_API_NAME, 1), b);
      reinterpret_cast<const Impl*>(am)->build(g, *batch);
    });
    write_reason(err, len, why);
    return st;
  }
  // An encoder declares `static constexpr zen_model_kind kKind = ZEN_MODEL_ENCODER;` and has no
  // cache_rows/n_layers.
  static constexpr uint32_t kind() {
    if constexpr (requires { Impl::kKind; })
      return static_cast<uint32_t>(Impl::kKind);
    else
      return ZEN_MODEL_DECODER;
  }
  static constexpr bool kHasCache = requires(const Impl& m) { m.cache_rows(0u); };
  static zen_status cache_rows(const zen_arch_model* am, uint32_t layer, uint32_t* k, uint32_t* v) {
    const Impl* m = reinterpret_cast<const Impl*>(am);
    if (!m || !k || !v) return ZEN_ERR_INVALID_ARG;
    if constexpr (kHasCache) {
      if (layer >= m->n_layers()) return ZEN_ERR_NOT_FOUND;
      CacheRows r = m->cache_rows(layer);
      *k = r.k;
      *v = r.v;
      return ZEN_OK;
    } else {
      return ZEN_ERR_NOT_FOUND;
    }
  }
  static constexpr bool kHasRun = requires(const Impl& m, const zen_pipeline_call& c) { m.run(c); };
  static zen_status run(zen_arch_model* am, const zen_pipeline_call* call, char* err, size_t len) {
    std::string why;
    zen_status st = guarded(why, [&] {
      if (!am || !call) throw Error(ZEN_ERR_INVALID_ARG, "run: NULL model or call");
      if constexpr (kHasRun) {
        reinterpret_cast<const Impl*>(am)->run(*call);
      } else {
        throw Error(ZEN_ERR_UNSUPPORTED, "run: not a pipeline");
      }
    });
    write_reason(err, len, why);
    return st;
  }
  static constexpr uint32_t tasks() {
    if constexpr (requires { Impl::kTasks; })
      return static_cast<uint32_t>(Impl::kTasks);
    else
      return 0;
  }
  // A model whose kind depends on its file has `zen_model_kind kind() const`.
  static constexpr bool kHasLoadedKind = requires(const Impl& m) { m.kind(); };
  static uint32_t loaded_kind(const zen_arch_model* am) {
    if constexpr (kHasLoadedKind)
      return static_cast<uint32_t>(reinterpret_cast<const Impl*>(am)->kind());
    else
      return kind();
  }
  static constexpr const zen_hf_map* hf() {
    if constexpr (requires { Impl::kHf; })
      return &Impl::kHf;
    else
      return nullptr;
  }
  static constexpr zen_arch_v1 table() {
    return zen_arch_v1{ZEN_HDR_INIT(zen_arch_v1),
                       Impl::kNames,
                       static_cast<uint32_t>(sizeof(Impl::kNames) / sizeof(Impl::kNames[0])),
                       nullptr,
                       0,
                       load,
                       unload,
                       build_graph,
                       kHasCache ? cache_rows : nullptr,
                       kind(),
                       tasks(),
                       kHasRun ? run : nullptr,
                       hf(),
                       kHasLoadedKind ? loaded_kind : nullptr};
  }
};

}  // namespace detail
}  // namespace zen

// Exports class Impl as an architecture plugin named `name`.
#define ZEN_EXPORT_ARCH(Impl, name, version)                                     \
  namespace {                                                                    \
  constexpr zen_arch_v1 kZenArchTable = ::zen::detail::ArchTable<Impl>::table(); \
  }                                                                              \
  ZEN_DEFINE_PLUGIN(ZEN_KIND_ARCH, name, version, nullptr, &kZenArchTable, 1u, (void)0)
