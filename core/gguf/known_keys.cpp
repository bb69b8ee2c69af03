#include "gguf/known_keys.h"

#include <string_view>

#include "gguf/text.h"

namespace zen::gguf {

namespace {

struct KnownKey {
  std::string_view key;
  ValueType type;
  ValueType element;  // for arrays
};

constexpr ValueType kNone = ValueType::U8;  // unused element slot for non-arrays

constexpr KnownKey kKnown[] = {
    {"general.architecture", ValueType::STRING, kNone},
    {"general.name", ValueType::STRING, kNone},
    {"general.alignment", ValueType::U32, kNone},
    {"tokenizer.ggml.model", ValueType::STRING, kNone},
    {"tokenizer.ggml.pre", ValueType::STRING, kNone},
    {"tokenizer.ggml.tokens", ValueType::ARRAY, ValueType::STRING},
    {"tokenizer.ggml.scores", ValueType::ARRAY, ValueType::F32},
    {"tokenizer.ggml.token_type", ValueType::ARRAY, ValueType::I32},
    {"tokenizer.ggml.merges", ValueType::ARRAY, ValueType::STRING},
    {"tokenizer.ggml.bos_token_id", ValueType::U32, kNone},
    {"tokenizer.ggml.eos_token_id", ValueType::U32, kNone},
    {"tokenizer.ggml.eot_token_id", ValueType::U32, kNone},
    {"tokenizer.ggml.eom_token_id", ValueType::U32, kNone},
    {"tokenizer.ggml.unknown_token_id", ValueType::U32, kNone},
    {"tokenizer.ggml.seperator_token_id", ValueType::U32, kNone},
    {"tokenizer.ggml.padding_token_id", ValueType::U32, kNone},
    {"tokenizer.ggml.mask_token_id", ValueType::U32, kNone},
    {"tokenizer.ggml.add_bos_token", ValueType::BOOL, kNone},
    {"tokenizer.ggml.add_eos_token", ValueType::BOOL, kNone},
    {"tokenizer.chat_template", ValueType::STRING, kNone},
};

// Arrays with one entry per token.
constexpr std::string_view kPerToken[] = {"tokenizer.ggml.scores", "tokenizer.ggml.token_type"};

std::string label(size_t index, std::string_view key) {
  return "metadata key #" + std::to_string(index) + " " + quote(key);
}

std::string expected_name(const KnownKey& k) {
  return k.type == ValueType::ARRAY ? "array of " + type_name(k.element) : type_name(k.type);
}

bool matches(const KnownKey& k, const Value& v) {
  return k.type == ValueType::ARRAY ? v.is_array_of(k.element) : v.type() == k.type;
}

uint64_t check_alignment(const Value& v, const Limits& limits) {
  uint32_t a = v.as_u32();
  if (a == 0 || (a & (a - 1)) != 0) {
    throw Error("alignment " + std::to_string(a) + " is not a power of two");
  }
  if (a > limits.max_alignment) {
    throw Error("alignment " + std::to_string(a) + " exceeds the limit of " +
                std::to_string(limits.max_alignment));
  }
  return a;
}

}  // namespace

uint64_t check_known_keys(const std::vector<KeyValue>& kv, const Limits& limits) {
  uint64_t alignment = kDefaultAlignment;
  const Array* tokens = nullptr;
  for (size_t i = 0; i < kv.size(); ++i) {
    const auto& [key, value] = kv[i];
    for (const KnownKey& k : kKnown) {
      if (k.key != key) continue;
      if (!matches(k, value)) {
        throw Error(label(i, key) + ": expected " + expected_name(k) + ", got " +
                    value.type_name());
      }
    }
    try {
      if (key == "general.alignment") alignment = check_alignment(value, limits);
    } catch (const Error& e) {
      throw Error(label(i, key) + ": " + e.what());
    }
    if (key == "tokenizer.ggml.tokens") tokens = &value.as_array();
  }
  if (!tokens) return alignment;
  for (size_t i = 0; i < kv.size(); ++i) {
    for (std::string_view per_token : kPerToken) {
      if (kv[i].key != per_token) continue;
      size_t n = kv[i].value.as_array().size();
      if (n != tokens->size()) {
        throw Error(label(i, kv[i].key) + ": has " + std::to_string(n) +
                    " entries but tokenizer.ggml.tokens has " + std::to_string(tokens->size()));
      }
    }
  }
  return alignment;
}

}  // namespace zen::gguf
