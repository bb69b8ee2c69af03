// zen::gguf::Writer: every metadata value type and tensor layouts round-trip through the
// reader; the bytes equal those of the independent test-only writer (gguf_writer.h); the
// write is atomic (no destination and no temporary file until finish() succeeds).
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include "gguf/gguf.h"
#include "gguf/writer.h"
#include "gguf_writer.h"

namespace zen::gguf {
namespace {

namespace fs = std::filesystem;

class GgufWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("zen-gguf-write-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const char* name = "out.gguf") const { return (dir_ / name).string(); }
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename());
    return out;
  }
  static std::vector<uint8_t> read_all(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }

  fs::path dir_;
};

// Tensor bytes that differ per tensor and position.
std::vector<uint8_t> pattern(uint64_t n, uint8_t seed) {
  std::vector<uint8_t> b(n);
  for (uint64_t i = 0; i < n; ++i) b[i] = static_cast<uint8_t>(seed * 31 + i * 7 + 1);
  return b;
}

template <class T>
Value array_value(std::initializer_list<T> items) {
  return array_of(std::span<const T>(items.begin(), items.size()));
}

TEST_F(GgufWrite, EveryScalarValueTypeRoundTrips) {
  Writer w(path());
  w.set("u8", value_of<uint8_t>(255));
  w.set("i8", value_of<int8_t>(-128));
  w.set("u16", value_of<uint16_t>(65535));
  w.set("i16", value_of<int16_t>(-32768));
  w.set("u32", value_of<uint32_t>(4000000000u));
  w.set("i32", value_of<int32_t>(-2000000000));
  w.set("u64", value_of<uint64_t>(std::numeric_limits<uint64_t>::max()));
  w.set("i64", value_of<int64_t>(std::numeric_limits<int64_t>::min()));
  w.set("f32", value_of(-1.5e-7f));
  w.set("f64", value_of(3.141592653589793));
  w.set("nan", value_of(std::numeric_limits<float>::quiet_NaN()));
  w.set("true", value_of(true));
  w.set("false", value_of(false));
  w.set("str", value_of("h\xC3\xA9llo \xF0\x9F\x98\x80"));
  w.set("empty", value_of(""));
  w.set("nul", value_of(std::string_view("a\0b", 3)));
  w.finish();

  File f = File::open(path());
  EXPECT_EQ(f.version(), 3u);
  ASSERT_EQ(f.metadata().size(), 16u);
  EXPECT_EQ(f.metadata()[0].key, "u8");  // insertion order is file order
  EXPECT_EQ(f.at("u8").as_u8(), 255);
  EXPECT_EQ(f.at("i8").as_i8(), -128);
  EXPECT_EQ(f.at("u16").as_u16(), 65535);
  EXPECT_EQ(f.at("i16").as_i16(), -32768);
  EXPECT_EQ(f.at("u32").as_u32(), 4000000000u);
  EXPECT_EQ(f.at("i32").as_i32(), -2000000000);
  EXPECT_EQ(f.at("u64").as_u64(), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(f.at("i64").as_i64(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(f.at("f32").as_f32(), -1.5e-7f);
  EXPECT_EQ(f.at("f64").as_f64(), 3.141592653589793);
  EXPECT_TRUE(std::isnan(f.at("nan").as_f32()));
  EXPECT_TRUE(f.at("true").as_bool());
  EXPECT_FALSE(f.at("false").as_bool());
  EXPECT_EQ(f.get_string("str"), "h\xC3\xA9llo \xF0\x9F\x98\x80");
  EXPECT_EQ(f.get_string("empty"), "");
  EXPECT_EQ(f.get_string("nul"), std::string_view("a\0b", 3));
}

TEST_F(GgufWrite, EveryArrayTypeRoundTrips) {
  std::vector<std::string> words = {"<s>", "", "\xC4\xA0the", std::string(70000, 'x')};
  Writer w(path());
  w.set("a.u8", array_value<uint8_t>({0, 1, 255}));
  w.set("a.i8", array_value<int8_t>({-1, 127}));
  w.set("a.u16", array_value<uint16_t>({65535, 2}));
  w.set("a.i16", array_value<int16_t>({-300, 300}));
  w.set("a.u32", array_value<uint32_t>({7, 4294967295u}));
  w.set("a.i32", array_value<int32_t>({-5, 1, 2}));
  w.set("a.u64", array_value<uint64_t>({uint64_t{1} << 40}));
  w.set("a.i64", array_value<int64_t>({-(int64_t{1} << 50), 3}));
  w.set("a.f32", array_value<float>({0.25f, -3.5f}));
  w.set("a.f64", array_value<double>({1e300, -0.0}));
  w.set("a.bool", array_value<bool>({true, false, true}));
  w.set("a.str", array_of(std::span<const std::string>(words)));
  w.set("a.empty", array_value<uint32_t>({}));
  w.set("a.nested", array_of_arrays({array_value<int32_t>({1, 2}), array_value<int32_t>({}),
                                     array_of_arrays({array_value<uint8_t>({9})})}));
  w.finish();

  File f = File::open(path());
  const auto& u8 = f.at("a.u8").as_array_of(ValueType::U8);
  ASSERT_EQ(u8.size(), 3u);
  EXPECT_EQ(u8.at<uint8_t>(2), 255);
  EXPECT_EQ(f.at("a.i8").as_array_of(ValueType::I8).at<int8_t>(0), -1);
  EXPECT_EQ(f.at("a.u16").as_array_of(ValueType::U16).at<uint16_t>(0), 65535);
  EXPECT_EQ(f.at("a.i16").as_array_of(ValueType::I16).at<int16_t>(0), -300);
  EXPECT_EQ(f.at("a.u32").as_array_of(ValueType::U32).at<uint32_t>(1), 4294967295u);
  const auto& i32 = f.at("a.i32").as_array_of(ValueType::I32);
  ASSERT_EQ(i32.size(), 3u);
  EXPECT_EQ(i32.at<int32_t>(0), -5);
  EXPECT_EQ(i32.at<int32_t>(2), 2);
  EXPECT_EQ(f.at("a.u64").as_array_of(ValueType::U64).at<uint64_t>(0), uint64_t{1} << 40);
  EXPECT_EQ(f.at("a.i64").as_array_of(ValueType::I64).at<int64_t>(0), -(int64_t{1} << 50));
  EXPECT_EQ(f.at("a.f32").as_array_of(ValueType::F32).at<float>(1), -3.5f);
  const auto& f64 = f.at("a.f64").as_array_of(ValueType::F64);
  EXPECT_EQ(f64.at<double>(0), 1e300);
  EXPECT_TRUE(std::signbit(f64.at<double>(1)));
  const auto& bools = f.at("a.bool").as_array_of(ValueType::BOOL);
  EXPECT_TRUE(bools.at<bool>(0));
  EXPECT_FALSE(bools.at<bool>(1));
  const auto& str = f.at("a.str").as_array_of(ValueType::STRING);
  ASSERT_EQ(str.size(), words.size());
  for (size_t i = 0; i < words.size(); ++i) EXPECT_EQ(str.string_at(i), words[i]) << i;
  EXPECT_TRUE(f.at("a.empty").as_array_of(ValueType::U32).empty());
  const auto& nested = f.at("a.nested").as_array_of(ValueType::ARRAY);
  ASSERT_EQ(nested.size(), 3u);
  EXPECT_EQ(nested.array_at(0).as_array_of(ValueType::I32).at<int32_t>(1), 2);
  EXPECT_TRUE(nested.array_at(1).as_array_of(ValueType::I32).empty());
  EXPECT_EQ(nested.array_at(2)
                .as_array_of(ValueType::ARRAY)
                .array_at(0)
                .as_array_of(ValueType::U8)
                .at<uint8_t>(0),
            9);
}

TEST_F(GgufWrite, ValuesReadFromAFileCopyUnchanged) {
  {
    Writer w(path("a.gguf"));
    w.set("tokens", array_of(std::span<const std::string>(std::vector<std::string>{"a", "b"})));
    w.set("n", value_of<int16_t>(-7));
    w.set("nest", array_of_arrays({array_value<float>({1.5f})}));
    w.finish();
  }
  File a = File::open(path("a.gguf"));
  Writer w(path("b.gguf"));
  for (const auto& kv : a.metadata()) w.set(kv.key, kv.value);
  w.finish();
  // Same metadata, no tensors: byte-identical files.
  EXPECT_EQ(read_all(path("a.gguf")), read_all(path("b.gguf")));
}

TEST_F(GgufWrite, SetReplacesInPlaceAndRemoveDrops) {
  Writer w(path());
  w.set("a", value_of<uint32_t>(1));
  w.set("b", value_of<uint32_t>(2));
  w.set("c", value_of<uint32_t>(3));
  w.set("a", value_of("one"));
  EXPECT_TRUE(w.remove("b"));
  EXPECT_FALSE(w.remove("zzz"));
  w.finish();
  File f = File::open(path());
  ASSERT_EQ(f.metadata().size(), 2u);
  EXPECT_EQ(f.metadata()[0].key, "a");
  EXPECT_EQ(f.get_string("a"), "one");
  EXPECT_EQ(f.metadata()[1].key, "c");
}

// The same file through the independent test writer: identical header and tensor table, and
// tensor data at the same offsets (this writer also pads after the last tensor, as gguf-py).
TEST_F(GgufWrite, BytesMatchTheIndependentTestWriter) {
  test::Writer ref;
  ref.kv_string("general.architecture", "llama").kv_u32("llama.block_count", 2);
  ref.tensor({"tok", ZEN_TYPE_F32, {8, 3}})
      .tensor({"q", ZEN_TYPE_Q4_0, {64, 2}})
      .tensor({"norm", ZEN_TYPE_F16, {5}});
  std::vector<uint8_t> want = ref.build();

  Writer w(path());
  w.set("general.architecture", value_of("llama"));
  w.set("llama.block_count", value_of<uint32_t>(2));
  const std::vector<std::vector<uint64_t>> shapes = {{8, 3}, {64, 2}, {5}};
  const zen_type types[] = {ZEN_TYPE_F32, ZEN_TYPE_Q4_0, ZEN_TYPE_F16};
  const char* names[] = {"tok", "q", "norm"};
  std::vector<uint64_t> sizes;
  for (int i = 0; i < 3; ++i) sizes.push_back(w.add_tensor(names[i], types[i], shapes[i]));
  EXPECT_EQ(sizes, (std::vector<uint64_t>{96, 72, 10}));
  for (size_t i = 0; i < 3; ++i) {
    std::vector<uint8_t> data(sizes[i]);
    for (uint64_t k = 0; k < sizes[i]; ++k) data[k] = test::Writer::fill(i, k);
    w.write(data);
  }
  w.finish();

  std::vector<uint8_t> got = read_all(path());
  ASSERT_GE(got.size(), want.size());
  EXPECT_TRUE(std::equal(want.begin(), want.end(), got.begin()));
  EXPECT_EQ(got.size() % 32, 0u);
  for (size_t i = want.size(); i < got.size(); ++i) EXPECT_EQ(got[i], 0) << i;
}

TEST_F(GgufWrite, TensorsStreamedInOddPiecesRoundTrip) {
  Writer w(path());
  const std::vector<std::pair<zen_type, std::vector<uint64_t>>> specs = {
      {ZEN_TYPE_F32, {7}},       {ZEN_TYPE_Q4_K, {256, 3}},
      {ZEN_TYPE_F16, {3, 5, 2}}, {ZEN_TYPE_Q8_0, {32, 2, 1, 2}},
      {ZEN_TYPE_BF16, {1}},      {ZEN_TYPE_Q6_K, {512, 1}}};
  std::vector<uint8_t> all;
  std::vector<uint64_t> sizes;
  for (size_t i = 0; i < specs.size(); ++i) {
    sizes.push_back(w.add_tensor("t" + std::to_string(i), specs[i].first, specs[i].second));
    auto p = pattern(sizes.back(), static_cast<uint8_t>(i));
    all.insert(all.end(), p.begin(), p.end());
  }
  // Pieces of 1, 2, 3, ... bytes: most straddle a tensor boundary somewhere.
  size_t pos = 0;
  for (size_t n = 1; pos < all.size(); ++n) {
    size_t take = std::min(n, all.size() - pos);
    w.write({all.data() + pos, take});
    pos += take;
  }
  w.finish();

  File f = File::open(path());
  ASSERT_EQ(f.tensors().size(), specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    const TensorInfo& t = f.tensors()[i];
    EXPECT_EQ(t.name, "t" + std::to_string(i));
    EXPECT_EQ(t.type, specs[i].first);
    ASSERT_EQ(t.n_dims, specs[i].second.size());
    for (size_t d = 0; d < t.n_dims; ++d) EXPECT_EQ(t.ne[d], specs[i].second[d]);
    EXPECT_EQ(t.n_bytes, sizes[i]);
    EXPECT_EQ(t.file_offset % 32, 0u);
    auto want = pattern(sizes[i], static_cast<uint8_t>(i));
    EXPECT_TRUE(std::equal(want.begin(), want.end(), t.data)) << t.name;
  }
}

TEST_F(GgufWrite, GeneralAlignmentIsHonoured) {
  for (uint32_t align : {1u, 8u, 64u, 4096u}) {
    Writer w(path());
    w.set("general.alignment", value_of(align));
    w.add_tensor("a", ZEN_TYPE_F32, std::vector<uint64_t>{3});
    w.add_tensor("b", ZEN_TYPE_F16, std::vector<uint64_t>{5});
    EXPECT_EQ(w.alignment(), align);
    w.write(pattern(12, 1));
    w.write(pattern(10, 2));
    w.finish();
    File f = File::open(path());
    EXPECT_EQ(f.alignment(), align);
    EXPECT_EQ(f.data_offset() % align, 0u);
    EXPECT_EQ(f.tensors()[1].offset, (12 + align - 1) / align * align);
    auto b = pattern(10, 2);
    EXPECT_TRUE(std::equal(b.begin(), b.end(), f.tensors()[1].data));
    EXPECT_EQ(f.file_size() % align, 0u);
  }
}

TEST_F(GgufWrite, BadAlignmentIsRefused) {
  Writer w(path());
  w.set("general.alignment", value_of<uint32_t>(48));
  EXPECT_THROW(w.begin_data(), Error);
  w.set("general.alignment", value_of<uint64_t>(64));
  EXPECT_THROW(w.begin_data(), Error);
  EXPECT_TRUE(files().empty());
}

TEST_F(GgufWrite, BadTensorDeclarationsAreRefused) {
  Writer w(path());
  auto add = [&](const std::string& name, zen_type t, std::vector<uint64_t> ne) {
    return w.add_tensor(name, t, ne);
  };
  add("ok", ZEN_TYPE_F32, {4});
  EXPECT_THROW(add("ok", ZEN_TYPE_F32, {4}), Error);             // duplicate
  EXPECT_THROW(add("", ZEN_TYPE_F32, {4}), Error);               // empty name
  EXPECT_THROW(add("q", ZEN_TYPE_Q4_K, {128, 2}), Error);        // not whole blocks
  EXPECT_THROW(add("z", ZEN_TYPE_F32, {4, 0}), Error);           // empty
  EXPECT_THROW(add("d", ZEN_TYPE_F32, {1, 1, 1, 1, 1}), Error);  // 5 dims
  EXPECT_THROW(add("u", static_cast<zen_type>(4), {4}), Error);  // retired type id
  EXPECT_THROW(add("o", ZEN_TYPE_F32, {uint64_t{1} << 40, uint64_t{1} << 40}), Error);
  EXPECT_THROW(add("bad\xFF", ZEN_TYPE_F32, {4}), Error);  // not UTF-8
  EXPECT_THROW(w.set("", value_of(1u)), Error);
}

TEST_F(GgufWrite, NothingAppearsUntilFinishAndAnAbandonedWriteLeavesNothing) {
  {
    Writer w(path());
    w.add_tensor("t", ZEN_TYPE_F32, std::vector<uint64_t>{1024});
    w.write(pattern(1000, 3));
    EXPECT_FALSE(fs::exists(path()));
    EXPECT_EQ(files().size(), 1u);  // the temporary file, next to the destination
  }
  EXPECT_TRUE(files().empty());
}

TEST_F(GgufWrite, FinishWithMissingOrExtraDataFailsAndLeavesNothing) {
  {
    Writer w(path());
    w.add_tensor("t", ZEN_TYPE_F32, std::vector<uint64_t>{4});
    w.add_tensor("u", ZEN_TYPE_F32, std::vector<uint64_t>{4});
    w.write(pattern(20, 1));
    try {
      w.finish();
      FAIL() << "finish() accepted a missing tensor";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("'u' received 4 of its 16 bytes"), std::string::npos)
          << e.what();
    }
    EXPECT_THROW(w.write(pattern(13, 1)), Error);  // 12 fit, the 13th does not
  }
  EXPECT_TRUE(files().empty());
}

TEST_F(GgufWrite, DeclarationsAreFrozenOnceDataBegins) {
  Writer w(path());
  w.add_tensor("t", ZEN_TYPE_F32, std::vector<uint64_t>{1});
  w.begin_data();
  EXPECT_THROW(w.set("k", value_of(1u)), Error);
  EXPECT_THROW(w.add_tensor("u", ZEN_TYPE_F32, std::vector<uint64_t>{1}), Error);
}

TEST_F(GgufWrite, ReplacesAnExistingFileAtomically) {
  { std::ofstream(path()) << "old contents"; }
  Writer w(path());
  w.set("k", value_of("new"));
  w.begin_data();
  EXPECT_EQ(read_all(path()).size(), 12u);  // still the old file while writing
  w.finish();
  EXPECT_EQ(File::open(path()).get_string("k"), "new");
  EXPECT_EQ(files().size(), 1u);
}

TEST_F(GgufWrite, UnwritableDestinationIsAClearError) {
  Writer w((dir_ / "no-such-dir" / "out.gguf").string());
  try {
    w.finish();
    FAIL() << "wrote into a missing directory";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-dir"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace zen::gguf
