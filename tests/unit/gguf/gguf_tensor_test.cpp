// Hostile tensor tables: shapes, types, offsets and placement.
#include <gtest/gtest.h>

#include "expect_error.h"

namespace zen::gguf::test {
namespace {

Bytes one_tensor(Tensor t, std::optional<uint64_t> data_size = std::nullopt) {
  Writer w;
  w.data_size = data_size;
  w.tensor(std::move(t));
  return w.build();
}

TEST(GgufTensor, TooManyDims) {
  EXPECT_TRUE(refused(one_tensor({"t", 0, {1, 1, 1, 1, 1}}, 4),
                      {"tensor #0 't'", "n_dims 5 exceeds the maximum of 4"}));
  EXPECT_TRUE(refused(one_tensor({"t", 0, {}}, 4), {"tensor #0 't'", "n_dims is 0"}));
}

TEST(GgufTensor, HugeNDimsDoesNotReadPastTheEnd) {
  Bytes b = one_tensor({"t", 0, {4}}, 16);
  // n_dims sits right after the name (8-byte length + 1 byte) in the first tensor record.
  size_t at = 24 + 8 + 1;
  b[at + 3] = 0x7F;
  EXPECT_TRUE(refused(b, {"n_dims 2130706433 exceeds the maximum of 4"}));
}

TEST(GgufTensor, DimsWhoseProductOverflows) {
  EXPECT_TRUE(
      refused(one_tensor({"t", 0, {1ull << 32, 1ull << 32}}, 64),
              {"tensor #0 't'", "element count of shape [4294967296, 4294967296] overflows"}));
  EXPECT_TRUE(refused(one_tensor({"t", 0, {1ull << 40, 1ull << 30, 2, 2}}, 64), {"overflows"}));
  EXPECT_TRUE(
      refused(one_tensor({"t", 0, {1ull << 63}}, 64), {"dim 0", "exceeds the int64 range"}));
  // Element count fits, but the byte count does not.
  EXPECT_TRUE(refused(one_tensor({"t", 0, {1ull << 31, 1ull << 31}}, 64),
                      {"byte size of F32 shape [2147483648, 2147483648] overflows"}));
}

TEST(GgufTensor, ZeroDim) {
  EXPECT_TRUE(
      refused(one_tensor({"t", 0, {4, 0}}, 64),
              {"tensor #0 't'", "dim 1 of shape [4, 0] is 0", "empty tensors are refused"}));
}

TEST(GgufTensor, OffsetPastEof) {
  EXPECT_TRUE(refused(one_tensor({"t", 0, {4}, 1u << 20}, 64),
                      {"tensor #0 't'", "offset 1048576", "past the end of the file"}));
  EXPECT_TRUE(
      refused(one_tensor({"t", 0, {4}, ~uint64_t{0} - 31}, 64), {"past the end of the file"}));
}

TEST(GgufTensor, DataPastEof) {
  EXPECT_TRUE(refused(one_tensor({"t", 0, {16}}, 63),
                      {"tensor #0 't'", "data of 64 bytes", "extends past the end of the file"}));
  EXPECT_TRUE(
      refused(one_tensor({"t", 0, {1ull << 60}}, 64), {"extends past the end of the file"}));
}

TEST(GgufTensor, MisalignedOffset) {
  EXPECT_TRUE(refused(one_tensor({"t", 0, {4}, 4}, 64),
                      {"tensor #0 't'", "offset 4 is not a multiple of the alignment 32"}));
}

TEST(GgufTensor, UnknownType) {
  EXPECT_TRUE(refused(one_tensor({"t", 4, {32}}, 64), {"unknown tensor type 4", "retired"}));
  EXPECT_TRUE(refused(one_tensor({"t", 31, {32}}, 64), {"unknown tensor type 31", "retired"}));
  EXPECT_TRUE(
      refused(one_tensor({"t", 1000, {32}}, 64), {"tensor #0 't'", "unknown tensor type 1000"}));
}

TEST(GgufTensor, BlockMisalignedDims) {
  EXPECT_TRUE(refused(
      one_tensor({"t", 12, {100, 2}}, 1024),
      {"tensor #0 't'", "ne[0]=100 of shape [100, 2] is not a multiple of Q4_K block size 256"}));
  EXPECT_TRUE(refused(one_tensor({"t", 8, {33}}, 1024), {"not a multiple of Q8_0 block size 32"}));
}

TEST(GgufTensor, DuplicateName) {
  Writer w;
  w.tensor({"a", 0, {4}}).tensor({"b", 0, {4}}).tensor({"a", 0, {4}});
  EXPECT_TRUE(refused(w.build(), {"tensor #2 'a': duplicate name (first at #0)"}));
}

TEST(GgufTensor, OverlappingData) {
  Writer w;
  w.tensor({"a", 0, {16}, 0}).tensor({"b", 0, {16}, 32});  // a: [0, 64), b: [32, 96)
  EXPECT_TRUE(refused(w.build(), {"tensor #1 'b'", "overlaps tensor #0 'a'"}));
  Writer same;
  same.tensor({"a", 0, {4}, 0}).tensor({"b", 0, {4}, 0});
  EXPECT_TRUE(refused(same.build(), {"overlaps"}));
  Writer listed_backwards;  // overlap found regardless of table order
  listed_backwards.tensor({"hi", 0, {4}, 64}).tensor({"lo", 0, {32}, 0});
  EXPECT_TRUE(refused(listed_backwards.build(), {"tensor #0 'hi'", "overlaps tensor #1 'lo'"}));
  Writer adjacent;  // touching is fine
  adjacent.tensor({"a", 0, {8}, 0}).tensor({"b", 0, {8}, 32});
  EXPECT_NO_THROW(File::parse(adjacent.build()));
}

TEST(GgufTensor, NameChecks) {
  EXPECT_TRUE(refused(one_tensor({"", 0, {4}}, 64), {"tensor #0 '': empty tensor name"}));
  EXPECT_TRUE(refused(one_tensor({std::string(300, 'n'), 0, {4}}, 64),
                      {"tensor #0: tensor name length 300", "exceeds the limit of 256"}));
  EXPECT_TRUE(
      refused(one_tensor({"bad\xFF", 0, {4}}, 64), {"tensor #0 'bad\\xff'", "not valid UTF-8"}));
  EXPECT_NO_THROW(File::parse(one_tensor({std::string(256, 'n'), 0, {4}})));
}

Bytes with_alignment(uint32_t type, const Bytes& payload) {
  Writer w;
  w.kv("general.alignment", type, payload).tensor({"t", 0, {4}});
  return w.build();
}

TEST(GgufTensor, BadAlignment) {
  EXPECT_TRUE(refused(with_alignment(T_U32, u32(0)), {"metadata key #0 'general.alignment'",
                                                      "alignment 0 is not a power of two"}));
  EXPECT_TRUE(refused(with_alignment(T_U32, u32(3)), {"alignment 3 is not a power of two"}));
  EXPECT_TRUE(refused(with_alignment(T_U32, u32(1u << 31)),
                      {"alignment 2147483648 exceeds the limit of 1048576"}));
  EXPECT_TRUE(refused(with_alignment(T_U64, u64(32)),
                      {"metadata key #0 'general.alignment'", "expected u32, got u64"}));
  EXPECT_TRUE(refused(with_alignment(T_STRING, str("32")), {"expected u32, got string"}));
}

}  // namespace
}  // namespace zen::gguf::test
