// Decoded GGUF metadata values. Values own their data (strings and arrays are copied out of
// the file, arrays stored compactly: scalar arrays as their raw little-endian bytes, string
// arrays as one blob), so a Value stays valid after its File is gone. Every accessor checks
// the type and throws zen::gguf::Error naming what was expected and what was found.
#pragma once

#include <bit>
#include <concepts>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gguf/error.h"

namespace zen::gguf {

// GGUF's metadata value type ids.
enum class ValueType : uint32_t {
  U8 = 0,
  I8 = 1,
  U16 = 2,
  I16 = 3,
  U32 = 4,
  I32 = 5,
  F32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  U64 = 10,
  I64 = 11,
  F64 = 12,
};
inline constexpr uint32_t kValueTypeCount = 13;

// "u8", "i32", "f32", "bool", "string", "array", ...; "type 42" for ids outside the enum.
std::string type_name(ValueType t);
bool is_integer(ValueType t);
// Bytes one element occupies in the file (0 for string/array: variable).
uint32_t fixed_size(ValueType t);

namespace detail {
template <class T>
struct TypeOf;
template <>
struct TypeOf<uint8_t> {
  static constexpr ValueType v = ValueType::U8;
};
template <>
struct TypeOf<int8_t> {
  static constexpr ValueType v = ValueType::I8;
};
template <>
struct TypeOf<uint16_t> {
  static constexpr ValueType v = ValueType::U16;
};
template <>
struct TypeOf<int16_t> {
  static constexpr ValueType v = ValueType::I16;
};
template <>
struct TypeOf<uint32_t> {
  static constexpr ValueType v = ValueType::U32;
};
template <>
struct TypeOf<int32_t> {
  static constexpr ValueType v = ValueType::I32;
};
template <>
struct TypeOf<float> {
  static constexpr ValueType v = ValueType::F32;
};
template <>
struct TypeOf<bool> {
  static constexpr ValueType v = ValueType::BOOL;
};
template <>
struct TypeOf<uint64_t> {
  static constexpr ValueType v = ValueType::U64;
};
template <>
struct TypeOf<int64_t> {
  static constexpr ValueType v = ValueType::I64;
};
template <>
struct TypeOf<double> {
  static constexpr ValueType v = ValueType::F64;
};
template <>
struct TypeOf<std::string_view> {
  static constexpr ValueType v = ValueType::STRING;
};

template <class T>
concept Integer = std::integral<T> && !std::same_as<T, bool>;

// Integers of any GGUF integer type widen to one of these before a range-checked narrowing.
struct WideInt {
  bool is_signed;
  uint64_t u;
  int64_t s;
};

template <Integer T>
T narrow(const WideInt& w, ValueType from) {
  if (w.is_signed ? std::in_range<T>(w.s) : std::in_range<T>(w.u)) {
    return w.is_signed ? static_cast<T>(w.s) : static_cast<T>(w.u);
  }
  throw Error("integer " + (w.is_signed ? std::to_string(w.s) : std::to_string(w.u)) + " (" +
              type_name(from) + ") out of range for " + (std::is_signed_v<T> ? "i" : "u") +
              std::to_string(sizeof(T) * 8));
}
}  // namespace detail

class Array;

class Value {
 public:
  // Construction is for the parser (and tests); bits hold the scalar's zero-extended
  // little-endian encoding.
  static Value scalar(ValueType t, uint64_t bits);
  static Value string(std::string s);
  static Value array(Array a);

  ValueType type() const { return type_; }
  std::string type_name() const;  // "u32", "string", "array of string", "array of array"
  bool is_integer() const { return gguf::is_integer(type_); }
  bool is_string() const { return type_ == ValueType::STRING; }
  bool is_array() const { return type_ == ValueType::ARRAY; }
  bool is_array_of(ValueType element) const;

  // Exact-type accessors.
  uint8_t as_u8() const { return static_cast<uint8_t>(checked(ValueType::U8)); }
  int8_t as_i8() const { return static_cast<int8_t>(checked(ValueType::I8)); }
  uint16_t as_u16() const { return static_cast<uint16_t>(checked(ValueType::U16)); }
  int16_t as_i16() const { return static_cast<int16_t>(checked(ValueType::I16)); }
  uint32_t as_u32() const { return static_cast<uint32_t>(checked(ValueType::U32)); }
  int32_t as_i32() const { return static_cast<int32_t>(checked(ValueType::I32)); }
  uint64_t as_u64() const { return checked(ValueType::U64); }
  int64_t as_i64() const { return static_cast<int64_t>(checked(ValueType::I64)); }
  float as_f32() const;
  double as_f64() const;
  bool as_bool() const { return checked(ValueType::BOOL) != 0; }
  std::string_view as_string() const;
  const Array& as_array() const;
  // The array, after checking its element type ("expected array of string, got array of i32").
  const Array& as_array_of(ValueType element) const;

  // Any integer type, converted to T if the value fits, else Error.
  template <detail::Integer T>
  T as_int() const {
    return detail::narrow<T>(wide(), type_);
  }
  // f32 or f64.
  double as_float() const;

 private:
  Value(ValueType t, uint64_t bits) : type_(t), bits_(bits) {}
  uint64_t checked(ValueType want) const;
  detail::WideInt wide() const;

  ValueType type_;
  uint64_t bits_ = 0;
  std::shared_ptr<const std::string> str_;
  std::shared_ptr<const Array> arr_;
};

class Array {
 public:
  static Array scalars(ValueType element, std::vector<uint8_t> raw);   // raw = n * fixed_size
  static Array strings(std::string blob, std::vector<uint64_t> ends);  // ends[i] = end of i
  static Array arrays(std::vector<Value> items);

  ValueType element_type() const { return elem_; }
  std::string type_name() const;  // "array of u32"
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }

  // Element i as T (uint8_t ... double, bool, std::string_view); T must match exactly.
  template <class T>
  T at(size_t i) const {
    constexpr ValueType want = detail::TypeOf<T>::v;
    if constexpr (want == ValueType::STRING) {
      return string_at(i);
    } else {
      uint64_t bits = scalar_bits(i, want);
      if constexpr (std::same_as<T, bool>) {
        return bits != 0;
      } else if constexpr (std::same_as<T, float>) {
        return std::bit_cast<float>(static_cast<uint32_t>(bits));
      } else if constexpr (std::same_as<T, double>) {
        return std::bit_cast<double>(bits);
      } else {
        return static_cast<T>(bits);
      }
    }
  }
  // Element i of any integer element type, converted to T if it fits.
  template <detail::Integer T>
  T int_at(size_t i) const {
    return detail::narrow<T>(wide_at(i), elem_);
  }
  std::string_view string_at(size_t i) const;
  const Value& array_at(size_t i) const;
  // Element i boxed as a Value, whatever its type (for generic walkers such as describe).
  Value element(size_t i) const;

 private:
  Array(ValueType e, size_t n) : elem_(e), n_(n) {}
  void check_index(size_t i) const;
  uint64_t scalar_bits(size_t i, ValueType want) const;
  uint64_t raw_bits(size_t i) const;
  detail::WideInt wide_at(size_t i) const;

  ValueType elem_;
  size_t n_;
  std::vector<uint8_t> raw_;    // scalar elements, little-endian as in the file
  std::string blob_;            // string elements, concatenated
  std::vector<uint64_t> ends_;  // string i is blob_[i ? ends_[i-1] : 0, ends_[i])
  std::vector<Value> items_;    // nested arrays
};

}  // namespace zen::gguf
