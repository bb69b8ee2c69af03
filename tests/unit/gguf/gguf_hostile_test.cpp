// Hostile headers and metadata: each file is broken in one way and must be refused with a
// message naming that way. Tensor-table cases are in gguf_tensor_test.cpp.
#include <gtest/gtest.h>

#include "expect_error.h"

namespace zen::gguf::test {
namespace {

// A small valid file with metadata and tensors, the base for truncation.
Bytes small_valid_file() {
  Writer w;
  w.kv_string("general.architecture", "llama")
      .kv("tokenizer.ggml.tokens", T_ARRAY, string_array({"a", "b", "c"}))
      .kv("tokenizer.ggml.scores", T_ARRAY, array(T_F32, 3, cat({f32(0), f32(1), f32(2)})))
      .kv("x.nested", T_ARRAY, array(T_ARRAY, 1, array(T_U16, 2, cat({u16(1), u16(2)}))))
      .tensor({"w", 8, {32, 2}})
      .tensor({"b", 0, {3}});
  return w.build();
}

// Header: magic, version, tensor count 0, kv count 1, then one pair (key, type, payload).
Bytes one_kv(std::string_view key, uint32_t type, const Bytes& payload) {
  Writer w;
  w.kv(key, type, payload);
  return w.build();
}

TEST(GgufHostile, EveryTruncationIsRefused) {
  Bytes full = small_valid_file();
  ASSERT_NO_THROW(File::parse(full));
  for (size_t n = 0; n < full.size(); ++n) {
    Bytes prefix(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_TRUE(refused(prefix, {}));
  }
}

TEST(GgufHostile, TruncationMessageSaysWhatAndWhere) {
  Bytes full = small_valid_file();
  Bytes b(full.begin(), full.begin() + 20);
  EXPECT_TRUE(
      refused(b, {"truncated: need 8 bytes for metadata kv count at offset 16, file has 20"}));
  Bytes c(full.begin(), full.begin() + 2);
  EXPECT_TRUE(refused(c, {"truncated: need 4 bytes for magic at offset 0, file has 2"}));
}

TEST(GgufHostile, BadMagic) {
  Bytes b = small_valid_file();
  b[3] = 'X';
  EXPECT_TRUE(refused(b, {"bad magic 'GGUX'", "not a GGUF file"}));
  Bytes legacy = {'l', 'm', 'g', 'g', 1, 0, 0, 0};
  EXPECT_TRUE(refused(legacy, {"bad magic 'lmgg'", "6c 6d 67 67"}));
}

TEST(GgufHostile, BadVersions) {
  auto with_version = [](uint32_t v) {
    Writer w;
    w.version = v;
    return w.build();
  };
  EXPECT_TRUE(refused(with_version(0), {"unsupported GGUF version 0", "only versions 2 and 3"}));
  EXPECT_TRUE(refused(with_version(1), {"GGUF version 1 is not supported"}));
  EXPECT_TRUE(refused(with_version(4), {"unsupported GGUF version 4"}));
  EXPECT_TRUE(refused(with_version(0x03000000), {"0x03000000 looks byte-swapped", "big-endian"}));
  EXPECT_TRUE(refused(with_version(0x02000000), {"byte-swapped", "version 2"}));
}

TEST(GgufHostile, HugeKvCount) {
  Writer w;
  w.kv_count = uint64_t{1} << 62;
  EXPECT_TRUE(refused(w.build(), {"metadata kv count 4611686018427387904 exceeds the limit"}));
  Writer small;  // under the cap but more than the bytes left could hold
  small.kv_count = 60000;
  small.kv_u32("a", 1);
  EXPECT_TRUE(refused(small.build(), {"metadata kv count 60000 cannot fit"}));
  Writer max;
  max.kv_count = ~uint64_t{0};
  EXPECT_TRUE(refused(max.build(), {"metadata kv count 18446744073709551615 exceeds"}));
}

TEST(GgufHostile, HugeTensorCount) {
  Writer w;
  w.tensor_count = uint64_t{1} << 40;
  EXPECT_TRUE(refused(w.build(), {"tensor count 1099511627776 exceeds the limit"}));
  Writer small;
  small.tensor_count = 1000;
  small.tensor({"a", 0, {4}});
  EXPECT_TRUE(refused(small.build(), {"tensor count 1000 cannot fit"}));
}

TEST(GgufHostile, HugeStringLength) {
  EXPECT_TRUE(
      refused(one_kv("k", T_STRING, u64(uint64_t{1} << 62)),
              {"metadata key #0 'k'", "string length 4611686018427387904", "exceeds the limit"}));
  // Under the cap, but past the end of the file.
  EXPECT_TRUE(refused(one_kv("k", T_STRING, cat({u64(1000), u8('x')})),
                      {"metadata key #0 'k'", "truncated: need 1000 bytes for string"}));
  // Huge key length.
  Bytes b = {'G', 'G', 'U', 'F'};
  append(b, cat({u32(3), u64(0), u64(1), u64(~uint64_t{0}), Bytes(16, 0)}));
  EXPECT_TRUE(refused(b, {"metadata key #0: key length 18446744073709551615", "exceeds"}));
}

TEST(GgufHostile, HugeArrayLength) {
  EXPECT_TRUE(refused(one_kv("k", T_ARRAY, cat({u32(T_U32), u64(uint64_t{1} << 40)})),
                      {"array length 1099511627776", "exceeds the limit"}));
  // Under the cap: must not allocate 4 MiB for a 50-byte file.
  EXPECT_TRUE(refused(one_kv("k", T_ARRAY, cat({u32(T_U32), u64(1u << 20), u32(1)})),
                      {"truncated: need 4194304 bytes for array of 1048576 u32"}));
  EXPECT_TRUE(refused(one_kv("k", T_ARRAY, cat({u32(T_STRING), u64(1u << 20), str("a")})),
                      {"truncated", "array of 1048576 string"}));
}

TEST(GgufHostile, BadValueType) {
  EXPECT_TRUE(refused(one_kv("k", 13, u32(0)), {"metadata key #0 'k'", "bad value type 13"}));
  EXPECT_TRUE(refused(one_kv("k", 0xFFFFFFFF, u32(0)), {"bad value type 4294967295"}));
}

TEST(GgufHostile, BadArrayElementType) {
  EXPECT_TRUE(refused(one_kv("k", T_ARRAY, cat({u32(13), u64(1), u32(0)})),
                      {"metadata key #0 'k'", "bad array element type 13"}));
  // Inside a nested array, the element index is named too.
  Bytes nested = array(T_ARRAY, 2, cat({array(T_U8, 0, {}), cat({u32(99), u64(0)})}));
  EXPECT_TRUE(
      refused(one_kv("k", T_ARRAY, nested), {"array element [1]: bad array element type 99"}));
}

TEST(GgufHostile, BoolMustBeZeroOrOne) {
  EXPECT_TRUE(refused(one_kv("k", T_BOOL, u8(2)), {"bool value 2", "not 0 or 1"}));
  EXPECT_TRUE(refused(one_kv("k", T_ARRAY, array(T_BOOL, 2, cat({u8(1), u8(7)}))),
                      {"array element [1]: bool value 7"}));
}

TEST(GgufHostile, DuplicateKey) {
  Writer w;
  w.kv_u32("a.b", 1).kv_u32("c", 2).kv_u32("a.b", 3);
  EXPECT_TRUE(refused(w.build(), {"metadata key #2 'a.b': duplicate key (first at #0)"}));
}

TEST(GgufHostile, EmptyOrInvalidKey) {
  EXPECT_TRUE(refused(one_kv("", T_U32, u32(1)), {"metadata key #0 '': empty key"}));
  EXPECT_TRUE(refused(one_kv("a\xC0\xAF", T_U32, u32(1)), {"key is not valid UTF-8"}));
  EXPECT_TRUE(refused(one_kv("\xED\xA0\x80", T_U32, u32(1)), {"key is not valid UTF-8"}));
}

Bytes nested_arrays(uint32_t depth) {
  Bytes v = array(T_U8, 1, u8(9));
  for (uint32_t d = 1; d < depth; ++d) v = array(T_ARRAY, 1, v);
  return v;
}

TEST(GgufHostile, NestingDepthCap) {
  Limits limits;
  ASSERT_EQ(limits.max_array_depth, 8u);
  EXPECT_NO_THROW(File::parse(one_kv("k", T_ARRAY, nested_arrays(8))));
  EXPECT_TRUE(refused(one_kv("k", T_ARRAY, nested_arrays(9)),
                      {"arrays nested 9 deep", "nesting limit of 8"}));
  EXPECT_TRUE(refused(one_kv("k", T_ARRAY, nested_arrays(500)), {"nesting limit of 8"}));
}

TEST(GgufHostile, LimitsAreHonoured) {
  Limits limits;
  limits.max_string_bytes = 4;
  EXPECT_TRUE(
      refused(one_kv("k", T_STRING, str("hello")), {"string length 5", "limit of 4"}, limits));
  limits = {};
  limits.max_kv_count = 2;
  Writer w;
  w.kv_u32("a", 1).kv_u32("b", 2).kv_u32("c", 3);
  EXPECT_TRUE(refused(w.build(), {"metadata kv count 3 exceeds the limit of 2"}, limits));
  limits = {};
  limits.max_array_length = 2;
  EXPECT_TRUE(refused(one_kv("k", T_ARRAY, array(T_U8, 3, cat({u8(1), u8(2), u8(3)}))),
                      {"array length 3", "limit of 2"}, limits));
  limits = {};
  limits.max_metadata_bytes = 1000;
  EXPECT_TRUE(refused(one_kv("k", T_ARRAY, array(T_U8, 2000, Bytes(2000, 1))),
                      {"max_metadata_bytes"}, limits));
  limits = {};
  limits.max_key_bytes = 3;
  EXPECT_TRUE(refused(one_kv("abcd", T_U8, u8(1)), {"key length 4", "limit of 3"}, limits));
}

TEST(GgufHostile, NestedArraysAreChargedAgainstTheMetadataBudget) {
  // 100k empty nested arrays: 1.2 MB in the file, several MB decoded.
  Bytes elems;
  for (int i = 0; i < 100000; ++i) append(elems, array(T_U8, 0, {}));
  Limits limits;
  limits.max_metadata_bytes = 2 << 20;
  EXPECT_TRUE(
      refused(one_kv("k", T_ARRAY, array(T_ARRAY, 100000, elems)), {"max_metadata_bytes"}, limits));
}

}  // namespace
}  // namespace zen::gguf::test
