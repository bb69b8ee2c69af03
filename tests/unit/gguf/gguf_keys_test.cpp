// Well-known keys must have the types the engine reads them as, and per-token arrays must
// match the vocabulary length.
#include <gtest/gtest.h>

#include "expect_error.h"

namespace zen::gguf::test {
namespace {

Bytes f32s(int n) {
  Bytes b;
  for (int i = 0; i < n; ++i) append(b, f32(static_cast<float>(-i)));
  return b;
}
Bytes i32s(int n) {
  Bytes b;
  for (int i = 0; i < n; ++i) append(b, i32(1));
  return b;
}

TEST(GgufKeys, ValidTokenizerMetadataIsAccepted) {
  Writer w;
  w.kv_string("general.architecture", "llama")
      .kv_string("tokenizer.ggml.model", "gpt2")
      .kv("tokenizer.ggml.tokens", T_ARRAY, string_array({"a", "b", "ab", "<s>"}))
      .kv("tokenizer.ggml.scores", T_ARRAY, array(T_F32, 4, f32s(4)))
      .kv("tokenizer.ggml.token_type", T_ARRAY, array(T_I32, 4, i32s(4)))
      .kv("tokenizer.ggml.merges", T_ARRAY, string_array({"a b"}))
      .kv_u32("tokenizer.ggml.bos_token_id", 3)
      .kv_u32("tokenizer.ggml.eos_token_id", 3)
      .kv_u32("tokenizer.ggml.unknown_token_id", 0)
      .kv_u32("tokenizer.ggml.padding_token_id", 0)
      .kv("tokenizer.ggml.add_bos_token", T_BOOL, u8(1));
  Bytes b = w.build();
  File f = File::parse(b);
  EXPECT_EQ(f.at("tokenizer.ggml.tokens").as_array_of(ValueType::STRING).string_at(3), "<s>");
  EXPECT_EQ(f.at("tokenizer.ggml.scores").as_array_of(ValueType::F32).at<float>(2), -2.0f);
}

TEST(GgufKeys, TokensAsArrayOfI32) {
  Writer w;
  w.kv_string("general.architecture", "llama")
      .kv("tokenizer.ggml.tokens", T_ARRAY, array(T_I32, 2, i32s(2)));
  EXPECT_TRUE(refused(w.build(), {"metadata key #1 'tokenizer.ggml.tokens': expected array of "
                                  "string, got array of i32"}));
}

TEST(GgufKeys, ScoresAsArrayOfString) {
  Writer w;
  w.kv("tokenizer.ggml.scores", T_ARRAY, string_array({"1.0"}));
  EXPECT_TRUE(
      refused(w.build(), {"'tokenizer.ggml.scores': expected array of f32, got array of string"}));
}

TEST(GgufKeys, TokenTypeWrongLength) {
  Writer w;
  w.kv("tokenizer.ggml.token_type", T_ARRAY, array(T_I32, 3, i32s(3)))
      .kv("tokenizer.ggml.tokens", T_ARRAY, string_array({"a", "b", "c", "d"}));
  EXPECT_TRUE(refused(w.build(), {"metadata key #0 'tokenizer.ggml.token_type': has 3 entries but "
                                  "tokenizer.ggml.tokens has 4"}));
  Writer s;
  s.kv("tokenizer.ggml.tokens", T_ARRAY, string_array({"a", "b"}))
      .kv("tokenizer.ggml.scores", T_ARRAY, array(T_F32, 5, f32s(5)));
  EXPECT_TRUE(refused(s.build(), {"'tokenizer.ggml.scores': has 5 entries"}));
}

TEST(GgufKeys, WrongScalarTypes) {
  Writer arch;
  arch.kv_u32("general.architecture", 1);
  EXPECT_TRUE(refused(arch.build(), {"'general.architecture': expected string, got u32"}));
  Writer bos;
  bos.kv("tokenizer.ggml.bos_token_id", T_I32, i32(1));
  EXPECT_TRUE(refused(bos.build(), {"'tokenizer.ggml.bos_token_id': expected u32, got i32"}));
  Writer eos;
  eos.kv("tokenizer.ggml.eos_token_id", T_U64, u64(1));
  EXPECT_TRUE(refused(eos.build(), {"'tokenizer.ggml.eos_token_id': expected u32, got u64"}));
  Writer unk;
  unk.kv_string("tokenizer.ggml.unknown_token_id", "0");
  EXPECT_TRUE(refused(unk.build(), {"expected u32, got string"}));
  Writer pad;
  pad.kv("tokenizer.ggml.padding_token_id", T_ARRAY, array(T_U32, 1, u32(0)));
  EXPECT_TRUE(refused(pad.build(), {"expected u32, got array of u32"}));
  Writer merges;
  merges.kv("tokenizer.ggml.merges", T_ARRAY, array(T_ARRAY, 0, {}));
  EXPECT_TRUE(refused(merges.build(), {"expected array of string, got array of array"}));
  Writer tt;
  tt.kv("tokenizer.ggml.token_type", T_ARRAY, array(T_U32, 0, {}));
  EXPECT_TRUE(refused(tt.build(), {"expected array of i32, got array of u32"}));
}

TEST(GgufKeys, UnknownKeysMayHaveAnyType) {
  Writer w;
  w.kv("custom.tokens", T_ARRAY, array(T_I32, 2, i32s(2))).kv("llama.whatever", T_F64, f64(1));
  EXPECT_NO_THROW(File::parse(w.build()));
}

}  // namespace
}  // namespace zen::gguf::test
