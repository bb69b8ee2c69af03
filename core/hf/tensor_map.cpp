#include "hf/tensor_map.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <numbers>
#include <set>
#include <stdexcept>

#include <zen/half.hpp>

namespace zen::hf {
namespace {

using safetensors::DType;

class Metadata {
 public:
  Metadata(const std::vector<gguf::KeyValue>& kv, std::string arch) : kv_(kv), arch_(arch) {}
  const gguf::Value* find(const std::string& key) const {
    const std::string k = key.starts_with("{arch}") ? arch_ + key.substr(6) : key;
    for (const gguf::KeyValue& e : kv_)
      if (e.key == k) return &e.value;
    return nullptr;
  }
  uint32_t u32(const std::string& key, uint32_t fallback) const {
    const gguf::Value* v = find(key);
    return v && v->is_integer() ? v->as_int<uint32_t>() : fallback;
  }
  float f32(const std::string& key, float fallback) const {
    const gguf::Value* v = find(key);
    if (!v) return fallback;
    return v->is_integer() ? static_cast<float>(v->as_int<int64_t>())
                           : static_cast<float>(v->as_float());
  }
  std::string str(const std::string& key) const {
    const gguf::Value* v = find(key);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
  }

 private:
  const std::vector<gguf::KeyValue>& kv_;
  std::string arch_;
};

uint64_t rope_head_dim(const Metadata& meta) {
  const uint32_t n_head = meta.u32("{arch}.attention.head_count", 0);
  return meta.u32("{arch}.attention.key_length",
                  n_head ? meta.u32("{arch}.embedding_length", 0) / n_head : 0);
}

std::string replace(std::string s, std::string_view what, const std::string& with) {
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + with.size()))
    s.replace(at, what.size(), with);
  return s;
}

zen_type gguf_type(const safetensors::Tensor& t) {
  switch (t.dtype) {
    case DType::kF32:
      return ZEN_TYPE_F32;
    case DType::kF16:
      return ZEN_TYPE_F16;
    case DType::kBF16:
      return ZEN_TYPE_BF16;
    default:
      throw std::runtime_error("tensor '" + t.name + "' is " + dtype_name(t.dtype) +
                               ": only F32, F16 and BF16 checkpoints load (quantize them with "
                               "--isq instead)");
  }
}

class Mapper {
 public:
  Mapper(safetensors::Checkpoint checkpoint, const Metadata& meta)
      : checkpoint_(std::make_shared<const safetensors::Checkpoint>(std::move(checkpoint))),
        meta_(meta) {}

  void row(const std::string& gguf, const std::string& hf, uint32_t transform) {
    if (transform == ZEN_HF_LLAMA3_ROPE_FACTORS) return llama3_rope_factors(gguf);
    if (hf.find("{E}") != std::string::npos) return stacked(gguf, hf, transform);
    const safetensors::Tensor* t = checkpoint_->find(hf);
    if (!t) return;
    used_.insert(hf);
    const zen_type type = gguf_type(*t);
    if (t->shape.size() > gguf::kMaxDims)
      throw std::runtime_error("tensor '" + hf + "' has " + std::to_string(t->shape.size()) +
                               " dimensions; GGUF tensors have at most 4");
    std::vector<uint64_t> ne(t->shape.rbegin(), t->shape.rend());
    if (ne.empty()) ne.push_back(1);
    if (transform == ZEN_HF_PLUS_ONE || ne.size() == 1) return as_f32(gguf, *t, ne, transform);
    if (transform == ZEN_HF_ROPE_PAIRS) return rope_pairs(gguf, *t, type, ne);
    if (transform != ZEN_HF_AS_IS) unknown(gguf, transform);
    add(gguf, type, ne, t->data.data(), t->data.size(), {});
  }

  // Every checkpoint tensor must have found a row, but the buffers transformers saves beside
  // the weights (rope frequencies, BERT's position ids), which the runtime makes itself.
  void check_all_used() const {
    std::vector<std::string> left;
    for (const safetensors::Tensor* t : checkpoint_->tensors())
      if (!used_.count(t->name) && !t->name.ends_with("rotary_emb.inv_freq") &&
          !t->name.ends_with("embeddings.position_ids"))
        left.push_back(t->name);
    if (left.empty()) return;
    throw std::runtime_error(
        "tensor '" + left.front() + "'" +
        (left.size() > 1 ? " (and " + std::to_string(left.size() - 1) + " more)" : "") +
        " is not one the architecture plugin reads");
  }

  MappedTensors take() { return {std::move(tensors_), std::move(checkpoint_)}; }

 private:
  [[noreturn]] static void unknown(const std::string& gguf, uint32_t transform) {
    throw std::runtime_error("the plugin's row for '" + gguf + "' has an unknown transform " +
                             std::to_string(transform));
  }

  // data: where the bytes are mapped, or nullptr and `fill` writes them.
  void add(const std::string& name, zen_type type, const std::vector<uint64_t>& ne,
           const uint8_t* data, uint64_t n_bytes, std::function<void(uint8_t*)> fill) {
    gguf::TensorInfo info{};
    info.name = name;
    info.type = type;
    info.n_dims = static_cast<uint32_t>(ne.size());
    info.ne = {1, 1, 1, 1};
    info.n_elements = 1;
    for (size_t i = 0; i < ne.size(); ++i) {
      info.ne[i] = ne[i];
      info.n_elements *= ne[i];
    }
    info.n_bytes = n_bytes;
    info.data = data;
    tensors_.push_back({std::move(info), std::move(fill)});
  }

  void as_f32(const std::string& gguf, const safetensors::Tensor& t,
              const std::vector<uint64_t>& ne, uint32_t transform) {
    if (transform != ZEN_HF_AS_IS && transform != ZEN_HF_PLUS_ONE) unknown(gguf, transform);
    const float offset = transform == ZEN_HF_PLUS_ONE ? 1.0f : 0.0f;
    add(gguf, ZEN_TYPE_F32, ne, nullptr, t.n_elements * 4, [&t, offset](uint8_t* dst) {
      float* out = reinterpret_cast<float*>(dst);
      for (uint64_t i = 0; i < t.n_elements; ++i) out[i] = element(t, i) + offset;
    });
  }

  void rope_pairs(const std::string& gguf, const safetensors::Tensor& t, zen_type type,
                  const std::vector<uint64_t>& ne) {
    const uint64_t d = rope_head_dim(meta_);
    const uint64_t rows = ne.size() > 1 ? ne[1] : 1, row_bytes = t.data.size() / rows;
    if (ne.size() != 2 || d == 0 || d % 2 || rows % d)
      throw std::runtime_error("tensor '" + t.name + "': " + std::to_string(rows) +
                               " rows are not whole heads of " + std::to_string(d));
    add(gguf, type, ne, nullptr, t.data.size(), [&t, d, rows, row_bytes](uint8_t* out) {
      rope_pair_rows(t.data.data(), out, rows, d, row_bytes);
    });
  }

  // Experts 0 .. expert_count-1 of one projection, stacked as GGUF's [.., .., n_expert].
  void stacked(const std::string& gguf, const std::string& hf, uint32_t transform) {
    if (transform != ZEN_HF_AS_IS) unknown(gguf, transform);
    const uint32_t n = meta_.u32("{arch}.expert_count", 0);
    const safetensors::Tensor* first = checkpoint_->find(replace(hf, "{E}", "0"));
    if (!first || n == 0) return;
    const zen_type type = gguf_type(*first);
    if (first->shape.size() != 2)
      throw std::runtime_error("expert tensor '" + first->name + "' is not a matrix");
    const uint64_t each = first->data.size();
    std::vector<const safetensors::Tensor*> experts;
    for (uint32_t e = 0; e < n; ++e) {
      const std::string name = replace(hf, "{E}", std::to_string(e));
      const safetensors::Tensor* t = checkpoint_->find(name);
      if (!t) throw std::runtime_error("expert tensor '" + name + "' is missing");
      if (t->dtype != first->dtype || t->shape != first->shape)
        throw std::runtime_error("expert tensor '" + name + "' differs in type or shape from '" +
                                 first->name + "'");
      experts.push_back(t);
      used_.insert(name);
    }
    add(gguf, type, {first->shape[1], first->shape[0], n}, nullptr, each * n,
        [experts, each](uint8_t* out) {
          for (size_t e = 0; e < experts.size(); ++e)
            std::memcpy(out + e * each, experts[e]->data.data(), each);
        });
  }

  // Llama 3's scaled rope as per-pair frequency divisors, in float arithmetic as llama.cpp's
  // converter computes them (torch.float32), so a directory and its conversion agree exactly.
  void llama3_rope_factors(const std::string& gguf) {
    if (meta_.str("{arch}.rope.scaling.type") != "llama3") return;
    const uint32_t n_head = meta_.u32("{arch}.attention.head_count", 0);
    const uint32_t d = meta_.u32("{arch}.attention.key_length",
                                 n_head ? meta_.u32("{arch}.embedding_length", 0) / n_head : 0);
    const float base = meta_.f32("{arch}.rope.freq_base", 10000.0f);
    const float factor = meta_.f32("{arch}.rope.scaling.factor", 8.0f);
    const float low = meta_.f32("{arch}.rope.scaling.low_freq_factor", 1.0f);
    const float high = meta_.f32("{arch}.rope.scaling.high_freq_factor", 4.0f);
    const float old_ctx =
        static_cast<float>(meta_.u32("{arch}.rope.scaling.original_context_length", 8192));
    if (d < 2 || !(high > low)) throw std::runtime_error("llama3 rope scaling: bad parameters");
    std::vector<float> out(d / 2);
    for (uint32_t i = 0; i < d / 2; ++i) {
      const float inv_freq =
          1.0f / std::pow(base, static_cast<float>(2 * i) / static_cast<float>(d));
      const float wavelen = static_cast<float>(2 * std::numbers::pi) / inv_freq;
      if (wavelen < old_ctx / high) {
        out[i] = 1.0f;
      } else if (wavelen > old_ctx / low) {
        out[i] = factor;
      } else {
        const float smooth = (old_ctx / wavelen - low) / (high - low);
        out[i] = 1.0f / ((1.0f - smooth) / factor + smooth);
      }
    }
    add(gguf, ZEN_TYPE_F32, {d / 2}, nullptr, d / 2 * 4,
        [out](uint8_t* dst) { std::memcpy(dst, out.data(), out.size() * 4); });
  }

  std::shared_ptr<const safetensors::Checkpoint> checkpoint_;
  const Metadata& meta_;
  std::vector<quant::SourceTensor> tensors_;
  std::set<std::string> used_;
};

}  // namespace

float element(const safetensors::Tensor& t, uint64_t i) {
  switch (t.dtype) {
    case DType::kF32: {
      float f;
      std::memcpy(&f, t.data.data() + i * 4, 4);
      return f;
    }
    case DType::kF16:
    case DType::kBF16: {
      uint16_t h;
      std::memcpy(&h, t.data.data() + i * 2, 2);
      return t.dtype == DType::kF16 ? quant::half_to_float(h) : quant::bf16_to_float(h);
    }
    default:
      gguf_type(t);  // throws naming the type
      return 0;
  }
}

void rope_pair_rows(const uint8_t* src, uint8_t* dst, uint64_t rows, uint64_t d,
                    uint64_t row_bytes) {
  for (uint64_t h = 0; h < rows / d; ++h)
    for (uint64_t j = 0; j < 2; ++j)
      for (uint64_t i = 0; i < d / 2; ++i)
        std::memcpy(dst + (h * d + 2 * i + j) * row_bytes,
                    src + (h * d + j * (d / 2) + i) * row_bytes, row_bytes);
}

uint64_t rope_head_dim(const std::vector<gguf::KeyValue>& metadata, const std::string& arch) {
  return rope_head_dim(Metadata(metadata, arch));
}

MappedTensors map_tensors(safetensors::Checkpoint checkpoint, const zen_hf_map& map,
                          const std::vector<gguf::KeyValue>& metadata, const std::string& arch) {
  const Metadata meta(metadata, arch);
  Mapper mapper(std::move(checkpoint), meta);
  const uint32_t n_layer = meta.u32("{arch}.block_count", 0);
  for (uint32_t i = 0; i < map.n_tensors; ++i) {
    const zen_hf_tensor& row = map.tensors[i];
    if (!row.gguf || !row.hf) continue;
    const std::string gguf = row.gguf, hf = row.hf;
    if (gguf.find("{L}") == std::string::npos) {
      mapper.row(gguf, hf, row.transform);
      continue;
    }
    for (uint32_t il = 0; il < n_layer; ++il) {
      const std::string l = std::to_string(il);
      mapper.row(replace(gguf, "{L}", l), replace(hf, "{L}", l), row.transform);
    }
  }
  mapper.check_all_used();
  return mapper.take();
}

}  // namespace zen::hf
