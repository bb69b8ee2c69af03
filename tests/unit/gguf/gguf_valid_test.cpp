// Valid files round-trip: every metadata type, nested arrays, several tensor types with their
// exact byte sizes, and zero-copy views into an mmap.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gguf/gguf.h"
#include "gguf_writer.h"

namespace zen::gguf::test {
namespace {

Writer every_type_writer(uint32_t version) {
  Writer w;
  w.version = version;
  w.kv("t.u8", T_U8, u8(200))
      .kv("t.i8", T_I8, u8(static_cast<uint8_t>(-5)))
      .kv("t.u16", T_U16, u16(60000))
      .kv("t.i16", T_I16, u16(static_cast<uint16_t>(-300)))
      .kv("t.u32", T_U32, u32(4000000000u))
      .kv("t.i32", T_I32, i32(-2000000000))
      .kv("t.f32", T_F32, f32(1.5f))
      .kv("t.bool", T_BOOL, u8(1))
      .kv("t.string", T_STRING, str("h\xC3\xA9llo"))
      .kv("t.u64", T_U64, u64(0xFEDCBA9876543210ull))
      .kv("t.i64", T_I64, u64(static_cast<uint64_t>(-1234567890123ll)))
      .kv("t.f64", T_F64, f64(-2.25))
      .kv("a.u8", T_ARRAY, array(T_U8, 3, cat({u8(1), u8(2), u8(255)})))
      .kv("a.i16", T_ARRAY, array(T_I16, 2, cat({u16(static_cast<uint16_t>(-1)), u16(7)})))
      .kv("a.i32", T_ARRAY, array(T_I32, 2, cat({i32(-7), i32(9)})))
      .kv("a.f32", T_ARRAY, array(T_F32, 2, cat({f32(0.25f), f32(-8.0f)})))
      .kv("a.bool", T_ARRAY, array(T_BOOL, 2, cat({u8(0), u8(1)})))
      .kv("a.u64", T_ARRAY, array(T_U64, 1, u64(1ull << 40)))
      .kv("a.f64", T_ARRAY, array(T_F64, 1, f64(3.5)))
      .kv("a.string", T_ARRAY, string_array({"a", "", "\xE2\x82\xAC"}))
      .kv("a.empty", T_ARRAY, array(T_U32, 0, {}))
      .kv("a.nested", T_ARRAY,
          array(T_ARRAY, 2,
                cat({array(T_I32, 2, cat({i32(1), i32(2)})), string_array({"x", "yz"})})));
  w.tensor({"f32", 0, {4, 3}})        // 48 bytes
      .tensor({"f16", 1, {8}})        // 16
      .tensor({"q4k", 12, {256, 2}})  // 2 rows of one 144-byte block
      .tensor({"q80", 8, {64, 3}})    // 3 rows of two 34-byte blocks
      .tensor({"i8", 24, {5, 1, 1, 2}});
  return w;
}

void check_every_type(const File& f, uint32_t version) {
  EXPECT_EQ(f.version(), version);
  EXPECT_EQ(f.alignment(), 32u);
  ASSERT_EQ(f.metadata().size(), 22u);
  EXPECT_EQ(f.metadata()[0].key, "t.u8");
  EXPECT_EQ(f.metadata()[21].key, "a.nested");
  EXPECT_EQ(f.at("t.u8").as_u8(), 200);
  EXPECT_EQ(f.at("t.i8").as_i8(), -5);
  EXPECT_EQ(f.at("t.u16").as_u16(), 60000);
  EXPECT_EQ(f.at("t.i16").as_i16(), -300);
  EXPECT_EQ(f.at("t.u32").as_u32(), 4000000000u);
  EXPECT_EQ(f.at("t.i32").as_i32(), -2000000000);
  EXPECT_EQ(f.at("t.f32").as_f32(), 1.5f);
  EXPECT_TRUE(f.at("t.bool").as_bool());
  EXPECT_EQ(f.at("t.string").as_string(), "h\xC3\xA9llo");
  EXPECT_EQ(f.at("t.u64").as_u64(), 0xFEDCBA9876543210ull);
  EXPECT_EQ(f.at("t.i64").as_i64(), -1234567890123ll);
  EXPECT_EQ(f.at("t.f64").as_f64(), -2.25);

  const Array& au8 = f.at("a.u8").as_array_of(ValueType::U8);
  ASSERT_EQ(au8.size(), 3u);
  EXPECT_EQ(au8.at<uint8_t>(2), 255);
  EXPECT_EQ(f.at("a.i16").as_array().at<int16_t>(0), -1);
  EXPECT_EQ(f.at("a.i32").as_array().at<int32_t>(0), -7);
  EXPECT_EQ(f.at("a.i32").as_array().int_at<int64_t>(1), 9);
  EXPECT_EQ(f.at("a.f32").as_array().at<float>(1), -8.0f);
  EXPECT_FALSE(f.at("a.bool").as_array().at<bool>(0));
  EXPECT_TRUE(f.at("a.bool").as_array().at<bool>(1));
  EXPECT_EQ(f.at("a.u64").as_array().at<uint64_t>(0), 1ull << 40);
  EXPECT_EQ(f.at("a.f64").as_array().at<double>(0), 3.5);
  const Array& as = f.at("a.string").as_array_of(ValueType::STRING);
  ASSERT_EQ(as.size(), 3u);
  EXPECT_EQ(as.string_at(0), "a");
  EXPECT_EQ(as.string_at(1), "");
  EXPECT_EQ(as.at<std::string_view>(2), "\xE2\x82\xAC");
  EXPECT_TRUE(f.at("a.empty").as_array().empty());
  EXPECT_EQ(f.at("a.empty").type_name(), "array of u32");
  const Array& nested = f.at("a.nested").as_array_of(ValueType::ARRAY);
  ASSERT_EQ(nested.size(), 2u);
  EXPECT_EQ(nested.array_at(0).as_array_of(ValueType::I32).at<int32_t>(1), 2);
  EXPECT_EQ(nested.array_at(1).as_array_of(ValueType::STRING).string_at(1), "yz");
  EXPECT_EQ(f.find("missing"), nullptr);

  ASSERT_EQ(f.tensors().size(), 5u);
  const uint64_t expect_bytes[] = {48, 16, 288, 204, 10};
  const zen_type expect_type[] = {ZEN_TYPE_F32, ZEN_TYPE_F16, ZEN_TYPE_Q4_K, ZEN_TYPE_Q8_0,
                                  ZEN_TYPE_I8};
  for (size_t i = 0; i < 5; ++i) {
    const TensorInfo& t = f.tensors()[i];
    EXPECT_EQ(t.n_bytes, expect_bytes[i]) << t.name;
    EXPECT_EQ(t.type, expect_type[i]) << t.name;
    EXPECT_EQ(t.offset % 32, 0u) << t.name;
    EXPECT_EQ(t.file_offset, f.data_offset() + t.offset);
    EXPECT_EQ(t.data, f.bytes().data() + t.file_offset);
    for (uint64_t k = 0; k < t.n_bytes; ++k) {
      ASSERT_EQ(t.data[k], Writer::fill(i, k)) << t.name << " byte " << k;
    }
  }
  EXPECT_EQ(f.data_offset() % 32, 0u);
  const TensorInfo* q = f.find_tensor("q4k");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->n_dims, 2u);
  EXPECT_EQ(q->dims()[0], 256u);
  EXPECT_EQ(q->dims()[1], 2u);
  EXPECT_EQ(q->ne[2], 1u);
  EXPECT_EQ(q->n_elements, 512u);
  const TensorInfo* i8 = f.find_tensor("i8");
  ASSERT_NE(i8, nullptr);
  EXPECT_EQ(i8->n_dims, 4u);
  EXPECT_EQ(i8->n_elements, 10u);
  EXPECT_EQ(f.find_tensor("nope"), nullptr);
  // The last tensor ends exactly at the end of the file.
  EXPECT_EQ(f.tensors().back().file_offset + f.tensors().back().n_bytes, f.file_size());
}

TEST(GgufValid, EveryTypeV3) {
  Bytes b = every_type_writer(3).build();
  check_every_type(File::parse(b), 3);
}

TEST(GgufValid, EveryTypeV2) {
  Bytes b = every_type_writer(2).build();
  check_every_type(File::parse(b), 2);
}

TEST(GgufValid, EmptyFileWithoutTensorsOrMetadata) {
  Writer w;
  File f = File::parse(w.build());
  EXPECT_TRUE(f.metadata().empty());
  EXPECT_TRUE(f.tensors().empty());
  EXPECT_EQ(f.file_size(), 24u);
}

TEST(GgufValid, CustomAlignmentIsUsedForLayout) {
  Writer w;
  w.alignment = 64;
  w.kv_u32("general.alignment", 64).tensor({"a", 0, {3}}).tensor({"b", 0, {5}});
  Bytes b = w.build();
  File f = File::parse(b);
  EXPECT_EQ(f.alignment(), 64u);
  EXPECT_EQ(f.data_offset() % 64, 0u);
  EXPECT_EQ(f.tensors()[1].offset, 64u);
}

TEST(GgufValid, MoveKeepsViewsValid) {
  Bytes b = every_type_writer(3).build();
  File a = File::parse(b);
  const uint8_t* data = a.tensors()[2].data;
  File moved = std::move(a);
  EXPECT_EQ(moved.tensors()[2].data, data);
  EXPECT_EQ(moved.find_tensor("q4k")->data, data);
  EXPECT_EQ(moved.at("t.u8").as_u8(), 200);
}

// Address range [lo, hi) of the mapping of `path` in this process, from /proc/self/maps.
bool mapped_from(const void* p, const std::string& path) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  auto addr = reinterpret_cast<uintptr_t>(p);
  while (std::getline(maps, line)) {
    std::istringstream in(line);
    std::string range, perms, off, dev, inode, file;
    in >> range >> perms >> off >> dev >> inode >> file;
    uintptr_t lo = std::stoull(range.substr(0, range.find('-')), nullptr, 16);
    uintptr_t hi = std::stoull(range.substr(range.find('-') + 1), nullptr, 16);
    if (addr >= lo && addr < hi) return file == path;
  }
  return false;
}

TEST(GgufValid, OpenMapsTheFileZeroCopy) {
  Bytes b = every_type_writer(3).build();
  auto path = (std::filesystem::temp_directory_path() /
               ("zen_gguf_test_" + std::to_string(::getpid()) + ".gguf"))
                  .string();
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  }
  {
    File f = File::open(path);
    check_every_type(f, 3);
    for (const TensorInfo& t : f.tensors()) {
      EXPECT_TRUE(mapped_from(t.data, std::filesystem::canonical(path).string())) << t.name;
      EXPECT_EQ(0, std::memcmp(t.data, b.data() + t.file_offset, t.n_bytes)) << t.name;
    }
  }
  std::filesystem::remove(path);
}

TEST(GgufValid, OpenReportsPathAndReason) {
  try {
    File::open("/nonexistent/dir/model.gguf");
    FAIL() << "opened a missing file";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/model.gguf: cannot open"),
              std::string::npos)
        << e.what();
  }
  try {
    File::open(std::filesystem::temp_directory_path().string());
    FAIL() << "opened a directory";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
}

TEST(GgufValid, OpenPrefixesParseErrorsWithPath) {
  auto path = (std::filesystem::temp_directory_path() /
               ("zen_gguf_empty_" + std::to_string(::getpid()) + ".gguf"))
                  .string();
  { std::ofstream out(path, std::ios::binary); }
  try {
    File::open(path);
    FAIL() << "opened an empty file";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              path + ": truncated: need 4 bytes for magic at offset 0, file has 0");
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace zen::gguf::test
