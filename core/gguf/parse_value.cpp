#include "gguf/parse_value.h"

#include <string>
#include <vector>

namespace zen::gguf {

namespace {

// The smallest encoding of one array element; a count times this must fit in the bytes left
// before anything is reserved, so a huge count cannot allocate.
uint64_t min_encoded_size(ValueType t) {
  if (t == ValueType::STRING) return 8;     // length only
  if (t == ValueType::ARRAY) return 4 + 8;  // element type + count
  return fixed_size(t);
}

// "array element [i]: ..." with the indexes of nested arrays merged into one path,
// "array element [3][0]: ...", so a deep error stays readable.
[[noreturn]] void rethrow_in_element(uint64_t i, const Error& e) {
  static constexpr std::string_view kPrefix = "array element ";
  std::string_view inner = e.what();
  std::string head = std::string(kPrefix) + "[" + std::to_string(i) + "]";
  if (inner.starts_with(kPrefix) && inner.size() > kPrefix.size() && inner[kPrefix.size()] == '[') {
    throw Error(head + std::string(inner.substr(kPrefix.size())));
  }
  throw Error(head + ": " + std::string(inner));
}

// What one nested-array element costs in memory: its Value plus the shared Array behind it.
constexpr uint64_t kNestedElementCost = sizeof(Value) + sizeof(Array) + 32;

uint64_t read_scalar(Cursor& c, ValueType t) {
  uint64_t bits = c.uint(fixed_size(t), (type_name(t) + " value").c_str());
  if (t == ValueType::BOOL && bits > 1) {
    throw Error("bool value " + std::to_string(bits) + " at offset " + std::to_string(c.pos() - 1) +
                " is not 0 or 1");
  }
  return bits;
}

Value read_array(Cursor& c, const Limits& limits, MetadataBudget& budget, uint32_t depth);

std::vector<uint8_t> read_scalar_elements(Cursor& c, ValueType t, uint64_t n) {
  uint64_t start = c.pos();
  auto raw = c.take(n * fixed_size(t), "array data");  // size checked by the caller
  if (t == ValueType::BOOL) {
    for (uint64_t i = 0; i < n; ++i) {
      if (raw[i] > 1) {
        throw Error("array element [" + std::to_string(i) + "]: bool value " +
                    std::to_string(raw[i]) + " at offset " + std::to_string(start + i) +
                    " is not 0 or 1");
      }
    }
  }
  return std::vector<uint8_t>(raw.begin(), raw.end());
}

Array read_string_elements(Cursor& c, uint64_t n, const Limits& limits, MetadataBudget& budget) {
  std::vector<uint64_t> ends;
  ends.reserve(n);
  std::string blob;
  for (uint64_t i = 0; i < n; ++i) {
    try {
      std::string_view s = read_string_view(c, limits.max_string_bytes, "string", "string length");
      budget.charge(s.size());
      blob += s;
      ends.push_back(blob.size());
    } catch (const Error& e) {
      rethrow_in_element(i, e);
    }
  }
  return Array::strings(std::move(blob), std::move(ends));
}

Array read_array_elements(Cursor& c, uint64_t n, const Limits& limits, MetadataBudget& budget,
                          uint32_t depth) {
  std::vector<Value> items;
  items.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    try {
      items.push_back(read_array(c, limits, budget, depth + 1));
    } catch (const Error& e) {
      rethrow_in_element(i, e);
    }
  }
  return Array::arrays(std::move(items));
}

Value read_array(Cursor& c, const Limits& limits, MetadataBudget& budget, uint32_t depth) {
  if (depth > limits.max_array_depth) {
    throw Error("arrays nested " + std::to_string(depth) + " deep at offset " +
                std::to_string(c.pos()) + ", above the nesting limit of " +
                std::to_string(limits.max_array_depth));
  }
  ValueType elem = read_value_type(c, "array element type");
  uint64_t n = c.u64("array length");
  if (n > limits.max_array_length) {
    throw Error("array length " + std::to_string(n) + " at offset " + std::to_string(c.pos() - 8) +
                " exceeds the limit of " + std::to_string(limits.max_array_length));
  }
  // n <= max_array_length (a uint64) times at most 12 can still overflow with a custom limit.
  uint64_t min_bytes = 0;
  if (__builtin_mul_overflow(n, min_encoded_size(elem), &min_bytes)) min_bytes = UINT64_MAX;
  c.need(min_bytes, "array of " + std::to_string(n) + " " + type_name(elem));
  if (elem == ValueType::STRING) {
    budget.charge(n * sizeof(uint64_t));
    return Value::array(read_string_elements(c, n, limits, budget));
  }
  if (elem == ValueType::ARRAY) {
    uint64_t cost = 0;
    if (__builtin_mul_overflow(n, kNestedElementCost, &cost)) cost = UINT64_MAX;
    budget.charge(cost);
    return Value::array(read_array_elements(c, n, limits, budget, depth));
  }
  budget.charge(min_bytes);
  return Value::array(Array::scalars(elem, read_scalar_elements(c, elem, n)));
}

}  // namespace

void MetadataBudget::charge(uint64_t bytes) {
  if (__builtin_add_overflow(used_, bytes, &used_) || used_ > limit_) {
    throw Error("metadata needs more than the limit of " + std::to_string(limit_) +
                " bytes (max_metadata_bytes)");
  }
}

ValueType read_value_type(Cursor& c, const char* what) {
  uint32_t id = c.u32(what);
  if (id >= kValueTypeCount) {
    throw Error(std::string("bad ") + what + " " + std::to_string(id) + " at offset " +
                std::to_string(c.pos() - 4) + " (GGUF defines 0.." +
                std::to_string(kValueTypeCount - 1) + ")");
  }
  return static_cast<ValueType>(id);
}

std::string read_string(Cursor& c, uint64_t max_bytes, const char* what, const char* length_what) {
  return std::string(read_string_view(c, max_bytes, what, length_what));
}

std::string_view read_string_view(Cursor& c, uint64_t max_bytes, const char* what,
                                  const char* length_what) {
  uint64_t len = c.u64(length_what);
  if (len > max_bytes) {
    throw Error(std::string(what) + " length " + std::to_string(len) + " at offset " +
                std::to_string(c.pos() - 8) + " exceeds the limit of " + std::to_string(max_bytes));
  }
  auto b = c.take(len, what);
  return std::string_view(reinterpret_cast<const char*>(b.data()), b.size());
}

Value read_value(Cursor& c, ValueType type, const Limits& limits, MetadataBudget& budget) {
  if (type == ValueType::STRING) {
    std::string s = read_string(c, limits.max_string_bytes, "string", "string length");
    budget.charge(s.size());
    return Value::string(std::move(s));
  }
  if (type == ValueType::ARRAY) return read_array(c, limits, budget, 1);
  budget.charge(sizeof(Value));
  return Value::scalar(type, read_scalar(c, type));
}

}  // namespace zen::gguf
