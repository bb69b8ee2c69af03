// Builds small tokenizer-only GGUF files in memory (with the gguf tests' independent writer), so
// tests can state a vocabulary, derive the expected tokens by hand, and break metadata in
// exactly one way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gguf/gguf.h"
#include "gguf_writer.h"
#include "tokenizer/tokenizer.h"

namespace zen::tokenizer::test {

struct VocabSpec {
  std::optional<std::string> model = "llama";
  std::optional<std::string> pre;
  std::vector<std::string> tokens;
  std::vector<float> scores;   // omitted when empty
  std::vector<int32_t> types;  // omitted when empty
  std::optional<std::vector<std::string>> merges;
  std::vector<std::pair<std::string, uint32_t>> u32_keys;  // e.g. bos_token_id
  std::vector<std::pair<std::string, bool>> bool_keys;     // e.g. add_bos_token
  // Extra pairs, already encoded (to put wrong types in).
  std::vector<std::tuple<std::string, uint32_t, gguf::test::Bytes>> raw_keys;
};

inline gguf::test::Bytes build_gguf(const VocabSpec& s) {
  using namespace gguf::test;
  Writer w;
  w.kv_string("general.architecture", "llama");
  if (s.model) w.kv_string("tokenizer.ggml.model", *s.model);
  if (s.pre) w.kv_string("tokenizer.ggml.pre", *s.pre);
  w.kv("tokenizer.ggml.tokens", T_ARRAY, string_array(s.tokens));
  if (!s.scores.empty()) {
    Bytes e;
    for (float f : s.scores) append(e, f32(f));
    w.kv("tokenizer.ggml.scores", T_ARRAY, array(T_F32, s.scores.size(), e));
  }
  if (!s.types.empty()) {
    Bytes e;
    for (int32_t t : s.types) append(e, i32(t));
    w.kv("tokenizer.ggml.token_type", T_ARRAY, array(T_I32, s.types.size(), e));
  }
  if (s.merges) w.kv("tokenizer.ggml.merges", T_ARRAY, string_array(*s.merges));
  for (const auto& [key, v] : s.u32_keys) w.kv_u32("tokenizer.ggml." + key, v);
  for (const auto& [key, v] : s.bool_keys) w.kv("tokenizer.ggml." + key, T_BOOL, u8(v ? 1 : 0));
  for (const auto& [key, type, payload] : s.raw_keys) w.kv(key, type, payload);
  return w.build();
}

inline Tokenizer make_tokenizer(const VocabSpec& s) {
  gguf::test::Bytes bytes = build_gguf(s);
  return Tokenizer::from_gguf(gguf::File::parse(bytes));
}

// GGUF token types.
enum : int32_t {
  kNormal = 1,
  kUnknown = 2,
  kControl = 3,
  kUserDefined = 4,
  kUnused = 5,
  kByte = 6
};

}  // namespace zen::tokenizer::test
