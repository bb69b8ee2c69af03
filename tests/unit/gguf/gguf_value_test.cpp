// Value and Array accessors: exact-type checks, range-checked integer conversion, and typed
// lookups on File whose errors name the key.
#include <gtest/gtest.h>

#include "gguf/gguf.h"
#include "gguf_writer.h"

namespace zen::gguf::test {
namespace {

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(GgufValue, ExactAccessorsRefuseOtherTypes) {
  Value v = Value::scalar(ValueType::U32, 7);
  EXPECT_EQ(v.as_u32(), 7u);
  EXPECT_EQ(error_of([&] { (void)v.as_i32(); }), "expected i32, got u32");
  EXPECT_EQ(error_of([&] { (void)v.as_string(); }), "expected string, got u32");
  EXPECT_EQ(error_of([&] { (void)v.as_array(); }), "expected array, got u32");
  EXPECT_EQ(error_of([&] { (void)v.as_float(); }), "expected f32 or f64, got u32");
}

TEST(GgufValue, AsIntConvertsAnyIntegerWithRangeCheck) {
  EXPECT_EQ(Value::scalar(ValueType::U8, 200).as_int<int32_t>(), 200);
  EXPECT_EQ(Value::scalar(ValueType::I8, 0xFB).as_int<int64_t>(), -5);
  EXPECT_EQ(Value::scalar(ValueType::U64, 1ull << 40).as_int<int64_t>(), int64_t{1} << 40);
  EXPECT_EQ(error_of([] { (void)Value::scalar(ValueType::U32, 300).as_int<uint8_t>(); }),
            "integer 300 (u32) out of range for u8");
  EXPECT_EQ(error_of([] { (void)Value::scalar(ValueType::I32, 0xFFFFFFFF).as_int<uint32_t>(); }),
            "integer -1 (i32) out of range for u32");
  EXPECT_EQ(error_of([] { (void)Value::scalar(ValueType::U64, ~0ull).as_int<int64_t>(); }),
            "integer 18446744073709551615 (u64) out of range for i64");
  EXPECT_EQ(error_of([] { (void)Value::scalar(ValueType::F32, 0).as_int<int>(); }),
            "expected an integer, got f32");
}

TEST(GgufValue, ArrayAccessChecksTypeAndIndex) {
  Value v = Value::array(Array::scalars(ValueType::I32, cat({i32(-1), i32(5)})));
  const Array& a = v.as_array();
  EXPECT_EQ(a.at<int32_t>(0), -1);
  EXPECT_EQ(a.int_at<uint8_t>(1), 5);
  EXPECT_EQ(error_of([&] { (void)a.int_at<uint8_t>(0); }), "integer -1 (i32) out of range for u8");
  EXPECT_EQ(error_of([&] { (void)a.at<float>(0); }), "expected array of f32, got array of i32");
  EXPECT_EQ(error_of([&] { (void)a.at<int32_t>(2); }),
            "array index 2 out of range (array of i32 has 2 elements)");
  EXPECT_EQ(error_of([&] { (void)a.string_at(0); }), "expected array of string, got array of i32");
  EXPECT_EQ(error_of([&] { (void)v.as_array_of(ValueType::STRING); }),
            "expected array of string, got array of i32");
  EXPECT_EQ(a.element(1).as_i32(), 5);
}

TEST(GgufValue, FileTypedLookupsNameTheKey) {
  Writer w;
  w.kv_string("general.architecture", "llama")
      .kv_u32("llama.context_length", 4096)
      .kv("llama.rope.freq_base", T_F32, f32(10000.0f));
  Bytes b = w.build();
  File f = File::parse(b);
  EXPECT_EQ(f.get_string("general.architecture"), "llama");
  EXPECT_EQ(f.get_int<int64_t>("llama.context_length"), 4096);
  EXPECT_EQ(f.find_int<uint32_t>("llama.context_length"), 4096u);
  EXPECT_EQ(f.find_int<uint32_t>("llama.block_count"), std::nullopt);
  EXPECT_EQ(f.get_float("llama.rope.freq_base"), 10000.0);
  EXPECT_EQ(error_of([&] { (void)f.get_int<int8_t>("llama.context_length"); }),
            "metadata key 'llama.context_length': integer 4096 (u32) out of range for i8");
  EXPECT_EQ(error_of([&] { (void)f.get_string("llama.context_length"); }),
            "metadata key 'llama.context_length': expected string, got u32");
  EXPECT_EQ(error_of([&] { (void)f.at("llama.block_count"); }),
            "missing metadata key 'llama.block_count'");
}

}  // namespace
}  // namespace zen::gguf::test
