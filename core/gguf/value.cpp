#include "gguf/value.h"

#include <bit>

namespace zen::gguf {

namespace {
constexpr const char* kNames[kValueTypeCount] = {
    "u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64"};
constexpr uint32_t kSizes[kValueTypeCount] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

detail::WideInt widen(ValueType t, uint64_t bits) {
  switch (t) {
    case ValueType::I8:
      return {true, 0, static_cast<int8_t>(bits)};
    case ValueType::I16:
      return {true, 0, static_cast<int16_t>(bits)};
    case ValueType::I32:
      return {true, 0, static_cast<int32_t>(bits)};
    case ValueType::I64:
      return {true, 0, static_cast<int64_t>(bits)};
    default:
      return {false, bits, 0};
  }
}
}  // namespace

std::string type_name(ValueType t) {
  auto id = static_cast<uint32_t>(t);
  return id < kValueTypeCount ? kNames[id] : "type " + std::to_string(id);
}

bool is_integer(ValueType t) {
  switch (t) {
    case ValueType::U8:
    case ValueType::I8:
    case ValueType::U16:
    case ValueType::I16:
    case ValueType::U32:
    case ValueType::I32:
    case ValueType::U64:
    case ValueType::I64:
      return true;
    default:
      return false;
  }
}

uint32_t fixed_size(ValueType t) {
  auto id = static_cast<uint32_t>(t);
  return id < kValueTypeCount ? kSizes[id] : 0;
}

// ---- Value ----

Value Value::scalar(ValueType t, uint64_t bits) { return Value(t, bits); }

Value Value::string(std::string s) {
  Value v(ValueType::STRING, 0);
  v.str_ = std::make_shared<const std::string>(std::move(s));
  return v;
}

Value Value::array(Array a) {
  Value v(ValueType::ARRAY, 0);
  v.arr_ = std::make_shared<const Array>(std::move(a));
  return v;
}

std::string Value::type_name() const {
  return is_array() ? arr_->type_name() : gguf::type_name(type_);
}

bool Value::is_array_of(ValueType element) const {
  return is_array() && arr_->element_type() == element;
}

uint64_t Value::checked(ValueType want) const {
  if (type_ != want) throw Error("expected " + gguf::type_name(want) + ", got " + type_name());
  return bits_;
}

detail::WideInt Value::wide() const {
  if (!is_integer()) throw Error("expected an integer, got " + type_name());
  return widen(type_, bits_);
}

float Value::as_f32() const {
  return std::bit_cast<float>(static_cast<uint32_t>(checked(ValueType::F32)));
}

double Value::as_f64() const { return std::bit_cast<double>(checked(ValueType::F64)); }

double Value::as_float() const {
  if (type_ == ValueType::F32) return as_f32();
  if (type_ == ValueType::F64) return as_f64();
  throw Error("expected f32 or f64, got " + type_name());
}

std::string_view Value::as_string() const {
  checked(ValueType::STRING);
  return *str_;
}

const Array& Value::as_array() const {
  checked(ValueType::ARRAY);
  return *arr_;
}

const Array& Value::as_array_of(ValueType element) const {
  if (!is_array_of(element)) {
    throw Error("expected array of " + gguf::type_name(element) + ", got " + type_name());
  }
  return *arr_;
}

// ---- Array ----

Array Array::scalars(ValueType element, std::vector<uint8_t> raw) {
  uint32_t size = fixed_size(element);
  if (size == 0 || raw.size() % size != 0) {
    throw Error("internal: bad scalar array of " + gguf::type_name(element));
  }
  Array a(element, raw.size() / size);
  a.raw_ = std::move(raw);
  return a;
}

Array Array::strings(std::string blob, std::vector<uint64_t> ends) {
  Array a(ValueType::STRING, ends.size());
  a.blob_ = std::move(blob);
  a.ends_ = std::move(ends);
  return a;
}

Array Array::arrays(std::vector<Value> items) {
  Array a(ValueType::ARRAY, items.size());
  a.items_ = std::move(items);
  return a;
}

std::string Array::type_name() const { return "array of " + gguf::type_name(elem_); }

void Array::check_index(size_t i) const {
  if (i >= n_) {
    throw Error("array index " + std::to_string(i) + " out of range (" + type_name() + " has " +
                std::to_string(n_) + " elements)");
  }
}

uint64_t Array::raw_bits(size_t i) const {
  uint32_t size = fixed_size(elem_);
  const uint8_t* p = raw_.data() + i * size;
  uint64_t bits = 0;
  for (uint32_t b = 0; b < size; ++b) bits |= uint64_t{p[b]} << (8 * b);
  return bits;
}

uint64_t Array::scalar_bits(size_t i, ValueType want) const {
  if (elem_ != want) {
    throw Error("expected array of " + gguf::type_name(want) + ", got " + type_name());
  }
  check_index(i);
  return raw_bits(i);
}

detail::WideInt Array::wide_at(size_t i) const {
  if (!is_integer(elem_)) throw Error("expected array of integers, got " + type_name());
  check_index(i);
  return widen(elem_, raw_bits(i));
}

std::string_view Array::string_at(size_t i) const {
  if (elem_ != ValueType::STRING) throw Error("expected array of string, got " + type_name());
  check_index(i);
  uint64_t begin = i ? ends_[i - 1] : 0;
  return std::string_view(blob_).substr(begin, ends_[i] - begin);
}

const Value& Array::array_at(size_t i) const {
  if (elem_ != ValueType::ARRAY) throw Error("expected array of array, got " + type_name());
  check_index(i);
  return items_[i];
}

Value Array::element(size_t i) const {
  check_index(i);
  if (elem_ == ValueType::STRING) return Value::string(std::string(string_at(i)));
  if (elem_ == ValueType::ARRAY) return items_[i];
  return Value::scalar(elem_, raw_bits(i));
}

}  // namespace zen::gguf
