#include "quant/recipe.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "types/type_traits.h"

namespace zen::quant {

namespace {

constexpr FileType kFileTypes[] = {
    {"F32", 0, ZEN_TYPE_F32},        {"F16", 1, ZEN_TYPE_F16},      {"BF16", 32, ZEN_TYPE_BF16},
    {"Q8_0", 7, ZEN_TYPE_Q8_0},      {"Q4_0", 2, ZEN_TYPE_Q4_0},    {"Q4_1", 3, ZEN_TYPE_Q4_1},
    {"Q5_0", 8, ZEN_TYPE_Q5_0},      {"Q5_1", 9, ZEN_TYPE_Q5_1},    {"Q2_K", 10, ZEN_TYPE_Q2_K},
    {"Q3_K_S", 11, ZEN_TYPE_Q3_K},   {"Q3_K_M", 12, ZEN_TYPE_Q3_K}, {"Q3_K_L", 13, ZEN_TYPE_Q3_K},
    {"Q4_K_S", 14, ZEN_TYPE_Q4_K},   {"Q4_K_M", 15, ZEN_TYPE_Q4_K}, {"Q5_K_S", 16, ZEN_TYPE_Q5_K},
    {"Q5_K_M", 17, ZEN_TYPE_Q5_K},   {"Q6_K", 18, ZEN_TYPE_Q6_K},   {"IQ4_NL", 25, ZEN_TYPE_IQ4_NL},
    {"IQ4_XS", 30, ZEN_TYPE_IQ4_XS},
};

// Name fragments of tensors that stay as they are although they are 2-D weights: small
// special-purpose matrices of particular architectures, where quantization saves nothing
// worth their accuracy (the list llama.cpp keeps).
constexpr std::string_view kNeverQuantized[] = {
    "_norm.weight",
    "ffn_gate_inp.weight",
    "altup",
    "laurel",
    "per_layer_model_proj",
    "ssm_conv1d.weight",
    "shortconv.conv.weight",
    "time_mix_first.weight",
    "time_mix_w0.weight",
    "time_mix_w1.weight",
    "time_mix_w2.weight",
    "time_mix_v0.weight",
    "time_mix_v1.weight",
    "time_mix_v2.weight",
    "time_mix_a0.weight",
    "time_mix_a1.weight",
    "time_mix_a2.weight",
    "time_mix_g1.weight",
    "time_mix_g2.weight",
    "time_mix_decay_w1.weight",
    "time_mix_decay_w2.weight",
    "time_mix_lerp_fused.weight",
    "attn_rel_b.weight",
};
// Whole names that stay as they are (BERT's position and token-type embeddings).
constexpr std::string_view kNeverQuantizedNames[] = {"position_embd.weight", "token_types.weight"};

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

uint32_t block_of(zen_type t) {
  const TypeTraits* tr = type_traits(t);
  return tr ? tr->block_size : 1;
}

std::string type_name(zen_type t) {
  const TypeTraits* tr = type_traits(t);
  return tr ? std::string(tr->name) : "type " + std::to_string(static_cast<int>(t));
}

// The layer number of "blk.<n>.…", if the name has one.
std::optional<uint32_t> layer_of(std::string_view name) {
  if (!name.starts_with("blk.")) return std::nullopt;
  uint32_t n = 0;
  auto [end, ec] = std::from_chars(name.data() + 4, name.data() + name.size(), n);
  if (ec != std::errc() || end == name.data() + 4 || end == name.data() + name.size() ||
      *end != '.') {
    return std::nullopt;
  }
  return n;
}

// llama.cpp's choice of layers that get more bits in the mixed K-quant recipes: the first
// and last eighth of the layers and every third layer in between.
bool use_more_bits(int i, int n) { return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2; }

class Planner {
 public:
  Planner(const FileType& ft, const ModelShape& m, std::span<const TensorDesc> tensors)
      : ft_(ft), m_(m) {
    for (const auto& t : tensors) {
      if (t.name == "output.weight") has_output_ = true;
      if (contains(t.name, "attn_v.weight")) ++n_attn_v_;
      if (contains(t.name, "ffn_down")) ++n_ffn_down_;
    }
    n_layer_ = m.n_layer ? static_cast<int>(m.n_layer) : n_ffn_down_;
  }

  // The output projection, or the token embedding that doubles as it (tied embeddings).
  bool is_output(std::string_view name) const {
    return name == "output.weight" || (!has_output_ && name == "token_embd.weight");
  }

  // The recipe's type for a quantizable tensor, before block-size fallbacks.
  zen_type choose(const TensorDesc& t, std::string& reason) {
    const std::string_view name = t.name;
    const zen_type base = ft_.base;
    if (is_output(name)) {
      if (t.ne[0] % block_of(base) != 0) return because(reason, "output", ZEN_TYPE_Q8_0);
      if (base != ZEN_TYPE_Q8_0) return because(reason, "output", ZEN_TYPE_Q6_K);
      return base;
    }
    if (contains(name, "attn_v.weight")) return attn_v(reason, i_attn_v_++);
    if (contains(name, "attn_k.weight")) {
      if (m_.n_expert == 8) return because(reason, "attn_k, 8 experts", ZEN_TYPE_Q8_0);
      return base;
    }
    if (contains(name, "ffn_down")) {
      int i = layer_of(name).value_or(static_cast<uint32_t>(i_ffn_down_));
      ++i_ffn_down_;
      return ffn_down(reason, i);
    }
    if (contains(name, "attn_output.weight")) return attn_output(reason);
    if (contains(name, "attn_qkv.weight")) {
      if (is("Q3_K_M") || is("Q3_K_L")) return because(reason, "attn_qkv", ZEN_TYPE_Q4_K);
      if (is("Q4_K_M")) return because(reason, "attn_qkv", ZEN_TYPE_Q5_K);
      if (is("Q5_K_M")) return because(reason, "attn_qkv", ZEN_TYPE_Q6_K);
    }
    return base;
  }

 private:
  bool is(std::string_view ft) const { return ft_.name == ft; }
  bool is_falcon() const { return m_.arch == "falcon"; }
  uint32_t n_gqa() const { return m_.n_head && m_.n_head_kv ? m_.n_head / m_.n_head_kv : 1; }
  static zen_type because(std::string& reason, std::string_view why, zen_type t) {
    reason = std::string(why);
    return t;
  }

  zen_type attn_v(std::string& reason, int i) const {
    const int n = n_attn_v_;
    zen_type t = ft_.base;
    if (is("Q2_K")) {
      t = n_gqa() >= 4 ? ZEN_TYPE_Q4_K : ZEN_TYPE_Q3_K;
    } else if (is("Q3_K_M")) {
      t = i < 2 ? ZEN_TYPE_Q5_K : ZEN_TYPE_Q4_K;
    } else if (is("Q3_K_L")) {
      t = ZEN_TYPE_Q5_K;
    } else if ((is("IQ4_NL") || is("IQ4_XS")) && n_gqa() >= 4) {
      t = ZEN_TYPE_Q5_K;
    } else if ((is("Q4_K_M") || is("Q5_K_M")) && use_more_bits(i, n)) {
      t = ZEN_TYPE_Q6_K;
    } else if (is("Q4_K_S") && i < 4) {
      t = ZEN_TYPE_Q5_K;
    }
    if (m_.n_expert == 8) t = ZEN_TYPE_Q8_0;
    if (t != ft_.base) reason = "attn_v, more bits";
    return t;
  }

  zen_type ffn_down(std::string& reason, int i) const {
    const int n = n_layer_;
    zen_type t = ft_.base;
    if (is("Q2_K")) {
      t = ZEN_TYPE_Q3_K;
    } else if (is("Q3_K_M")) {
      t = i < n / 16                            ? ZEN_TYPE_Q5_K
          : !is_falcon() || use_more_bits(i, n) ? ZEN_TYPE_Q4_K
                                                : ZEN_TYPE_Q3_K;
    } else if (is("Q3_K_L")) {
      t = is_falcon() ? ZEN_TYPE_Q4_K : ZEN_TYPE_Q5_K;
    } else if (is("Q4_K_M")) {
      if (is_falcon()) {
        t = i < n / 16 ? ZEN_TYPE_Q6_K : use_more_bits(i, n) ? ZEN_TYPE_Q5_K : t;
      } else if (use_more_bits(i, n)) {
        t = ZEN_TYPE_Q6_K;
      }
    } else if ((is("IQ4_NL") || is("IQ4_XS")) && i < n / 8) {
      t = ZEN_TYPE_Q5_K;
    } else if (is("Q5_K_M") && use_more_bits(i, n)) {
      t = ZEN_TYPE_Q6_K;
    } else if (is("Q4_K_S") && !is_falcon() && i < n / 8) {
      t = ZEN_TYPE_Q5_K;
    }
    if (t != ft_.base) reason = "ffn_down, more bits";
    return t;
  }

  zen_type attn_output(std::string& reason) const {
    zen_type t = ft_.base;
    if (is_falcon()) {
      if (is("Q3_K_L")) t = ZEN_TYPE_Q4_K;
    } else if (m_.n_expert == 8) {
      for (std::string_view ft :
           {"Q2_K", "Q3_K_S", "Q3_K_M", "IQ4_NL", "Q4_K_S", "Q4_K_M", "IQ4_XS"}) {
        if (is(ft)) t = ZEN_TYPE_Q5_K;
      }
    } else if (is("Q2_K")) {
      t = ZEN_TYPE_Q3_K;
    } else if (is("Q3_K_M")) {
      t = ZEN_TYPE_Q4_K;
    } else if (is("Q3_K_L")) {
      t = ZEN_TYPE_Q5_K;
    }
    if (t != ft_.base) reason = "attn_output, more bits";
    return t;
  }

  const FileType& ft_;
  const ModelShape& m_;
  bool has_output_ = false;
  int n_attn_v_ = 0, n_ffn_down_ = 0, n_layer_ = 0;
  int i_attn_v_ = 0, i_ffn_down_ = 0;
};

// A type whose block fits a row of n elements, for a tensor the recipe's type cannot hold:
// the 32-element format llama.cpp picks for it, else F16.
zen_type fallback_for(zen_type t, uint64_t n) {
  zen_type f = ZEN_TYPE_F16;
  switch (t) {
    case ZEN_TYPE_IQ4_XS:
      f = ZEN_TYPE_IQ4_NL;
      break;
    case ZEN_TYPE_Q2_K:
    case ZEN_TYPE_Q3_K:
      f = ZEN_TYPE_Q4_0;
      break;
    case ZEN_TYPE_Q4_K:
      f = ZEN_TYPE_Q5_0;
      break;
    case ZEN_TYPE_Q5_K:
      f = ZEN_TYPE_Q5_1;
      break;
    case ZEN_TYPE_Q6_K:
      f = ZEN_TYPE_Q8_0;
      break;
    default:
      break;
  }
  return n % block_of(f) == 0 ? f : ZEN_TYPE_F16;
}

}  // namespace

std::span<const FileType> file_types() { return kFileTypes; }

const FileType* find_file_type(std::string_view name) {
  for (const FileType& ft : kFileTypes) {
    if (std::equal(ft.name.begin(), ft.name.end(), name.begin(), name.end(),
                   [](char a, char b) { return a == std::toupper(static_cast<unsigned char>(b)); }))
      return &ft;
  }
  return nullptr;
}

bool is_quantizable(const TensorDesc& t) {
  if (!t.name.ends_with("weight") || t.ne.size() < 2) return false;
  for (std::string_view part : kNeverQuantized) {
    if (contains(t.name, part)) return false;
  }
  for (std::string_view name : kNeverQuantizedNames) {
    if (t.name == name) return false;
  }
  return true;
}

std::vector<TensorPlan> plan_quantization(const FileType& target, const ModelShape& model,
                                          std::span<const TensorDesc> tensors,
                                          const RecipeOptions& options) {
  const bool mixed = type_traits(target.base)->quantized && !options.pure;
  Planner planner(target, model, tensors);
  std::vector<TensorPlan> plans;
  plans.reserve(tensors.size());
  for (const TensorDesc& t : tensors) {
    TensorPlan p{t.type, ""};
    if (!is_quantizable(t)) {
      p.reason = t.ne.size() < 2 ? "1-D, kept" : "kept as is";
    } else if (options.leave_output && t.name == "output.weight") {
      p.reason = "output left as is";
    } else {
      p.type = mixed ? planner.choose(t, p.reason) : target.base;
      if (options.output_type && planner.is_output(t.name)) {
        p.type = *options.output_type;
        p.reason = "--output-tensor-type";
      }
      if (options.token_embedding_type && t.name == "token_embd.weight") {
        p.type = *options.token_embedding_type;
        p.reason = "--token-embedding-type";
      }
      if (t.ne[0] % block_of(p.type) != 0) {
        zen_type f = fallback_for(p.type, t.ne[0]);
        p.reason = "fallback: row of " + std::to_string(t.ne[0]) + " is not a multiple of the " +
                   type_name(p.type) + " block of " + std::to_string(block_of(p.type));
        p.type = f;
      }
    }
    plans.push_back(std::move(p));
  }
  return plans;
}

}  // namespace zen::quant
