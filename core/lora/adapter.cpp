#include "lora/adapter.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <tuple>

#include <zen/plugin.hpp>
#include <zen/quant_codec.hpp>

#include "hf/directory.h"
#include "hf/tensor_map.h"
#include "safetensors/checkpoint.h"
#include "types/type_traits.h"

namespace zen::lora {
namespace fs = std::filesystem;
namespace {

[[noreturn]] void fail(const fs::path& path, const std::string& why) {
  throw Error(ZEN_ERR_INVALID_ARG, "LoRA adapter " + path.string() + ": " + why);
}

std::string base_arch(const gguf::File& base) {
  const gguf::Value* v = base.find("general.architecture");
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

// The pair must multiply with the base weight it adapts: W [in, out], a [in, r], b [r, out].
void check_against(const fs::path& path, const std::string& name, const Pair& p,
                   const gguf::File& base) {
  const gguf::TensorInfo* w = base.find_tensor(name);
  if (!w) fail(path, "adapts '" + name + "', which the model does not have");
  if (w->n_dims != 2)
    fail(path, "adapts '" + name + "', which is not a matrix (" + std::to_string(w->n_dims) +
                   " dimensions; expert tensors are not adapted)");
  if (static_cast<int64_t>(w->ne[0]) != p.in || static_cast<int64_t>(w->ne[1]) != p.out)
    fail(path, "'" + name + "' is [" + std::to_string(w->ne[0]) + ", " + std::to_string(w->ne[1]) +
                   "] in the model but [" + std::to_string(p.in) + ", " + std::to_string(p.out) +
                   "] in the adapter");
}

// ---- llama.cpp's GGUF adapter --------------------------------------------------------------

bool plain_float(zen_type t) {
  return t == ZEN_TYPE_F32 || t == ZEN_TYPE_F16 || t == ZEN_TYPE_BF16;
}

std::vector<uint8_t> as_bytes(const std::vector<float>& v) {
  const auto* p = reinterpret_cast<const uint8_t*>(v.data());
  return {p, p + v.size() * sizeof(float)};
}

std::vector<float> to_f32(const fs::path& path, const gguf::TensorInfo& t) {
  if (!quant::has_dequantize(t.type)) fail(path, "'" + t.name + "' has a type that cannot be read");
  const TypeTraits* traits = type_traits(t.type);
  const std::optional<uint64_t> row = traits ? row_bytes(*traits, t.ne[0]) : std::nullopt;
  if (!row) fail(path, "'" + t.name + "': rows are not whole blocks of its type");
  std::vector<float> out(t.n_elements);
  const uint64_t rows = t.n_elements / t.ne[0];
  for (uint64_t r = 0; r < rows; ++r)
    quant::dequantize_row(t.type, t.data + r * *row, out.data() + r * t.ne[0],
                          static_cast<int64_t>(t.ne[0]));
  return out;
}

Adapter load_gguf(const fs::path& path, const gguf::File& base) {
  gguf::File f = gguf::File::open(path.string());
  auto str = [&](const char* key) {
    const gguf::Value* v = f.find(key);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
  };
  if (str("general.type") != "adapter" || str("adapter.type") != "lora")
    fail(path, "not a LoRA adapter (general.type '" + str("general.type") + "', adapter.type '" +
                   str("adapter.type") + "'; llama.cpp's convert_lora_to_gguf.py writes them)");
  if (str("general.architecture") != base_arch(base))
    fail(path,
         "is for '" + str("general.architecture") + "', the model is '" + base_arch(base) + "'");
  if (f.find("adapter.alora.invocation_tokens"))
    fail(path, "is an activated LoRA (invocation tokens), which is not supported");
  const float alpha =
      f.find("adapter.lora.alpha") ? static_cast<float>(f.get_float("adapter.lora.alpha")) : 0.0f;
  Adapter out;
  out.format = "gguf";
  std::map<std::string, std::pair<const gguf::TensorInfo*, const gguf::TensorInfo*>> halves;
  for (const gguf::TensorInfo& t : f.tensors()) {
    const bool is_a = t.name.ends_with(".lora_a"), is_b = t.name.ends_with(".lora_b");
    if (!is_a && !is_b) fail(path, "tensor '" + t.name + "' is neither a lora_a nor a lora_b");
    auto& h = halves[t.name.substr(0, t.name.size() - 7)];
    (is_a ? h.first : h.second) = &t;
  }
  for (const auto& [name, h] : halves) {
    if (!h.first || !h.second) fail(path, "'" + name + "' has only one of lora_a and lora_b");
    const gguf::TensorInfo &a = *h.first, &b = *h.second;
    if (a.n_dims != 2 || b.n_dims != 2 || a.ne[1] != b.ne[0])
      fail(path, "'" + name + "': lora_a [" + std::to_string(a.ne[0]) + ", " +
                     std::to_string(a.ne[1]) + "] and lora_b [" + std::to_string(b.ne[0]) + ", " +
                     std::to_string(b.ne[1]) + "] do not share a rank");
    Pair p;
    p.in = static_cast<int64_t>(a.ne[0]);
    p.rank = static_cast<int64_t>(a.ne[1]);
    p.out = static_cast<int64_t>(b.ne[1]);
    if (a.type == b.type && plain_float(a.type)) {  // kept as the file has them
      p.type = a.type;
      p.a.assign(a.data, a.data + a.n_bytes);
      p.b.assign(b.data, b.data + b.n_bytes);
    } else {
      p.a = as_bytes(to_f32(path, a));
      p.b = as_bytes(to_f32(path, b));
    }
    // llama.cpp: scale * alpha / rank, or scale alone when the file gives no alpha.
    p.fold = alpha != 0.0f ? alpha / static_cast<float>(p.rank) : 1.0f;
    out.pairs.emplace(name, std::move(p));
  }
  return out;
}

// ---- PEFT ------------------------------------------------------------------------------------

struct Row {
  std::string gguf;
  uint32_t transform;
};

// "model.layers.3.self_attn.q_proj.weight" -> its GGUF name and transform, from the plugin's
// rows with {L} expanded (expert rows are left out: expert weights are not adapted).
std::map<std::string, Row> hf_rows(const zen_hf_map& map, uint32_t n_layer) {
  auto replace = [](std::string s, const std::string& with) {
    for (size_t at = s.find("{L}"); at != std::string::npos; at = s.find("{L}"))
      s.replace(at, 3, with);
    return s;
  };
  std::map<std::string, Row> rows;
  for (uint32_t i = 0; i < map.n_tensors; ++i) {
    const zen_hf_tensor& r = map.tensors[i];
    if (!r.gguf || !r.hf || std::string(r.hf).find("{E}") != std::string::npos) continue;
    const std::string g = r.gguf, h = r.hf;
    if (h.find("{L}") == std::string::npos) {
      rows[h] = {g, r.transform};
      continue;
    }
    for (uint32_t il = 0; il < n_layer; ++il)
      rows[replace(h, std::to_string(il))] = {replace(g, std::to_string(il)), r.transform};
  }
  return rows;
}

// alpha for one module: alpha_pattern's entry whose key is the module's name or a dotted
// suffix of it (PEFT's rule), else lora_alpha.
float module_alpha(const nlohmann::json& config, const std::string& module) {
  float alpha = config.value("lora_alpha", 8.0f);
  const nlohmann::json pattern = config.value("alpha_pattern", nlohmann::json::object());
  if (pattern.is_object())
    for (const auto& [key, value] : pattern.items())
      if ((module == key || module.ends_with("." + key)) && value.is_number())
        alpha = value.get<float>();
  return alpha;
}

// The tensor's type when it is kept as published (F32, F16, BF16), else ZEN_TYPE_COUNT.
zen_type safetensors_type(const safetensors::Tensor& t) {
  switch (t.dtype) {
    case safetensors::DType::kF32:
      return ZEN_TYPE_F32;
    case safetensors::DType::kF16:
      return ZEN_TYPE_F16;
    case safetensors::DType::kBF16:
      return ZEN_TYPE_BF16;
    default:
      return ZEN_TYPE_COUNT;
  }
}

Adapter load_peft(const fs::path& path, const gguf::File& base, const zen_hf_map* hf) {
  const fs::path dir = fs::is_directory(path) ? path : path.parent_path();
  const fs::path weights = fs::is_directory(path) ? dir / "adapter_model.safetensors" : path;
  nlohmann::json config;
  try {
    config = hf::read_json(dir / "adapter_config.json", false);
  } catch (const std::exception& e) {
    fail(path, e.what());
  }
  if (!config.is_object()) fail(path, "adapter_config.json is not a JSON object");
  if (config.value("peft_type", std::string("LORA")) != "LORA")
    fail(path, "is a PEFT " + config.value("peft_type", std::string()) + " adapter, not LORA");
  if (config.value("use_dora", false)) fail(path, "is a DoRA adapter, which is not supported");
  if (config.value("fan_in_fan_out", false))
    fail(path, "stores fan_in_fan_out (Conv1D) weights, which no plugin here reads");
  const nlohmann::json saved = config.value("modules_to_save", nlohmann::json());
  if (saved.is_array() && !saved.empty())
    fail(path, "also replaces whole modules (modules_to_save), which is not supported");
  if (!hf) fail(path, "the '" + base_arch(base) + "' plugin maps no Hugging Face names");
  const bool rslora = config.value("use_rslora", false);

  const std::string arch = base_arch(base);
  const uint32_t n_layer = base.find_int<uint32_t>(arch + ".block_count").value_or(0);
  const std::map<std::string, Row> rows = hf_rows(*hf, n_layer);
  const safetensors::Checkpoint ckpt = safetensors::Checkpoint::open(weights);
  constexpr std::string_view kPrefix = "base_model.model.";
  Adapter out;
  out.format = "peft";
  std::map<std::string, std::pair<const safetensors::Tensor*, const safetensors::Tensor*>> halves;
  for (const safetensors::Tensor* t : ckpt.tensors()) {
    std::string n = t->name;
    if (n.starts_with(kPrefix)) n = n.substr(kPrefix.size());
    // PEFT saves the base weight beside an adapted lm_head/embedding ("save_embedding_layers");
    // the model's own copy is the one used, as llama.cpp's converter skips it too.
    if (n.ends_with(".base_layer.weight")) continue;
    if (n.find("lora_embedding_") != std::string::npos)
      fail(path, "'" + t->name + "' adapts an embedding, which is not supported");
    const bool is_a = n.ends_with(".lora_A.weight"), is_b = n.ends_with(".lora_B.weight");
    if (!is_a && !is_b) fail(path, "tensor '" + t->name + "' is neither lora_A nor lora_B");
    auto& h = halves[n.substr(0, n.size() - 14)];
    (is_a ? h.first : h.second) = t;
  }
  for (const auto& [module, h] : halves) {
    if (!h.first || !h.second) fail(path, "'" + module + "' has only one of lora_A and lora_B");
    const auto it = rows.find(module + ".weight");
    if (it == rows.end())
      fail(path, "'" + module + "' is not a weight the '" + arch + "' plugin maps");
    const safetensors::Tensor &a = *h.first, &b = *h.second;
    // torch shapes: lora_A [r, in], lora_B [out, r].
    if (a.shape.size() != 2 || b.shape.size() != 2 || a.shape[0] != b.shape[1])
      fail(path, "'" + module + "': lora_A and lora_B do not share a rank");
    Pair p;
    p.rank = static_cast<int64_t>(a.shape[0]);
    p.in = static_cast<int64_t>(a.shape[1]);
    p.out = static_cast<int64_t>(b.shape[0]);
    try {
      const zen_type ta = safetensors_type(a), tb = safetensors_type(b);
      if (ta == tb && ta != ZEN_TYPE_COUNT) {  // kept as published
        p.type = ta;
        p.a.assign(a.data.begin(), a.data.end());
        p.b.assign(b.data.begin(), b.data.end());
      } else {
        std::vector<float> fa(a.n_elements), fb(b.n_elements);
        for (uint64_t i = 0; i < a.n_elements; ++i) fa[i] = hf::element(a, i);
        for (uint64_t i = 0; i < b.n_elements; ++i) fb[i] = hf::element(b, i);
        p.a = as_bytes(fa);
        p.b = as_bytes(fb);
      }
    } catch (const std::exception& e) {
      fail(path, e.what());
    }
    const Row& row = it->second;
    if (row.transform == ZEN_HF_ROPE_PAIRS) {  // B's rows are the weight's output rows
      const uint64_t d = hf::rope_head_dim(base.metadata(), arch);
      if (d == 0 || d % 2 || p.out % static_cast<int64_t>(d))
        fail(path, "'" + module + "': rows are not whole heads");
      std::vector<uint8_t> permuted(p.b.size());
      hf::rope_pair_rows(p.b.data(), permuted.data(), p.out, d, p.b.size() / p.out);
      p.b = std::move(permuted);
    } else if (row.transform != ZEN_HF_AS_IS) {
      fail(path, "'" + module + "' is converted for GGUF in a way a LoRA cannot follow");
    }
    const float alpha = module_alpha(config, module);
    p.fold =
        rslora ? alpha / std::sqrt(static_cast<float>(p.rank)) : alpha / static_cast<float>(p.rank);
    out.pairs.emplace(row.gguf, std::move(p));
  }
  return out;
}

}  // namespace

uint64_t Adapter::bytes() const {
  uint64_t n = 0;
  for (const auto& [name, p] : pairs) n += p.a.size() + p.b.size();
  return n;
}

Adapter load(const fs::path& path, const gguf::File& base, const zen_hf_map* hf) {
  std::error_code ec;
  if (!fs::exists(path, ec)) fail(path, "no such file or directory");
  const bool peft = fs::is_directory(path, ec) || path.extension() == ".safetensors";
  Adapter a;
  try {
    a = peft ? load_peft(path, base, hf) : load_gguf(path, base);
  } catch (const Error& e) {
    if (e.message.starts_with("LoRA adapter ")) throw;
    fail(path, e.message);
  } catch (const std::exception& e) {
    fail(path, e.what());
  }
  if (a.pairs.empty()) fail(path, "adapts no tensor");
  std::map<float, size_t> folds;
  for (const auto& [name, p] : a.pairs) ++folds[p.fold];
  size_t most = 0;
  for (const auto& [fold, n] : folds)
    if (n > most) std::tie(most, a.fold) = std::pair{n, fold};
  for (const auto& [name, p] : a.pairs) check_against(path, name, p, base);
  fs::path stem = fs::is_directory(path, ec) ? path.filename() : path.stem();
  if (stem.empty()) stem = path.parent_path().filename();  // "dir/" names the directory
  a.name = stem.string();
  a.path = path.string();
  return a;
}

}  // namespace zen::lora
