// Test-only GGUF writer: builds byte buffers for valid files and, through its raw pieces and
// overrides, for files broken in exactly one chosen way. Kept independent of the reader so a
// reader bug cannot hide behind a matching writer bug.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "types/type_traits.h"

namespace zen::gguf::test {

using Bytes = std::vector<uint8_t>;

// GGUF metadata type ids, spelled out here rather than taken from the reader.
enum : uint32_t {
  T_U8 = 0,
  T_I8 = 1,
  T_U16 = 2,
  T_I16 = 3,
  T_U32 = 4,
  T_I32 = 5,
  T_F32 = 6,
  T_BOOL = 7,
  T_STRING = 8,
  T_ARRAY = 9,
  T_U64 = 10,
  T_I64 = 11,
  T_F64 = 12,
};

inline void put(Bytes& b, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
inline void append(Bytes& b, const Bytes& more) { b.insert(b.end(), more.begin(), more.end()); }

inline Bytes le(uint64_t v, int n) {
  Bytes b;
  put(b, v, n);
  return b;
}
inline Bytes u8(uint8_t v) { return le(v, 1); }
inline Bytes u16(uint16_t v) { return le(v, 2); }
inline Bytes u32(uint32_t v) { return le(v, 4); }
inline Bytes u64(uint64_t v) { return le(v, 8); }
inline Bytes i32(int32_t v) { return le(static_cast<uint32_t>(v), 4); }
inline Bytes f32(float v) { return le(std::bit_cast<uint32_t>(v), 4); }
inline Bytes f64(double v) { return le(std::bit_cast<uint64_t>(v), 8); }
// A gguf_string: u64 length then the bytes.
inline Bytes str(std::string_view s) {
  Bytes b = u64(s.size());
  b.insert(b.end(), s.begin(), s.end());
  return b;
}
inline Bytes cat(std::initializer_list<Bytes> parts) {
  Bytes b;
  for (const auto& p : parts) append(b, p);
  return b;
}
// An array value payload: element type, count, then the encoded elements.
inline Bytes array(uint32_t elem_type, uint64_t count, const Bytes& elements) {
  return cat({u32(elem_type), u64(count), elements});
}
inline Bytes string_array(const std::vector<std::string>& v) {
  Bytes e;
  for (const auto& s : v) append(e, str(s));
  return array(T_STRING, v.size(), e);
}

struct Tensor {
  Tensor(std::string name_, uint32_t type_, std::vector<uint64_t> ne_,
         std::optional<uint64_t> offset_ = std::nullopt,
         std::optional<uint64_t> n_bytes_ = std::nullopt)
      : name(std::move(name_)),
        type(type_),
        ne(std::move(ne_)),
        offset(offset_),
        n_bytes(n_bytes_) {}

  std::string name;
  uint32_t type;
  std::vector<uint64_t> ne;
  std::optional<uint64_t> offset;   // default: next aligned offset
  std::optional<uint64_t> n_bytes;  // default: from type_traits (0 data bytes if unknown type)
};

class Writer {
 public:
  uint32_t version = 3;
  uint32_t alignment = 32;           // used for layout; add general.alignment yourself
  std::optional<uint64_t> kv_count;  // override the header's counts
  std::optional<uint64_t> tensor_count;
  std::optional<uint64_t> data_size;  // override the data section length

  // A metadata pair with its value payload already encoded.
  Writer& kv(std::string_view key, uint32_t type, const Bytes& payload) {
    append(kvs_, cat({str(key), u32(type), payload}));
    ++n_kv_;
    return *this;
  }
  Writer& kv_u32(std::string_view key, uint32_t v) { return kv(key, T_U32, u32(v)); }
  Writer& kv_string(std::string_view key, std::string_view v) { return kv(key, T_STRING, str(v)); }
  Writer& tensor(Tensor t) {
    tensors_.push_back(std::move(t));
    return *this;
  }

  static uint64_t natural_size(const Tensor& t) {
    const TypeTraits* tr = type_traits(t.type);
    if (!tr || t.ne.empty()) return 0;
    auto row = row_bytes(*tr, t.ne[0]);
    if (!row) return 0;
    uint64_t n = *row;
    for (size_t d = 1; d < t.ne.size(); ++d) n *= t.ne[d];
    return n;
  }

  // The byte every tensor's data is filled with at position i, so tests can check views.
  static uint8_t fill(size_t tensor, uint64_t i) {
    return static_cast<uint8_t>(tensor * 37 + i * 7 + 1);
  }

  // Relative offsets build() gives each tensor.
  std::vector<uint64_t> offsets() const {
    std::vector<uint64_t> out;
    uint64_t next = 0;
    for (const auto& t : tensors_) {
      uint64_t off = t.offset ? *t.offset : next;
      out.push_back(off);
      uint64_t end = off + size_of(t);
      next = (end + alignment - 1) / alignment * alignment;
    }
    return out;
  }

  Bytes build() const {
    Bytes b = {'G', 'G', 'U', 'F'};
    append(b, u32(version));
    append(b, u64(tensor_count ? *tensor_count : tensors_.size()));
    append(b, u64(kv_count ? *kv_count : n_kv_));
    append(b, kvs_);
    auto offs = offsets();
    for (size_t i = 0; i < tensors_.size(); ++i) {
      const auto& t = tensors_[i];
      append(b, str(t.name));
      append(b, u32(static_cast<uint32_t>(t.ne.size())));
      for (uint64_t d : t.ne) append(b, u64(d));
      append(b, u32(t.type));
      append(b, u64(offs[i]));
    }
    if (tensors_.empty() && !data_size) return b;  // no data section, no padding
    while (b.size() % alignment) b.push_back(0);
    uint64_t data_end = 0;
    for (size_t i = 0; i < tensors_.size(); ++i) {
      data_end = std::max(data_end, offs[i] + size_of(tensors_[i]));
    }
    uint64_t n = data_size ? *data_size : data_end;
    size_t base = b.size();
    b.resize(base + n, 0);
    for (size_t i = 0; i < tensors_.size(); ++i) {
      for (uint64_t k = 0; k < size_of(tensors_[i]) && offs[i] + k < n; ++k) {
        b[base + offs[i] + k] = fill(i, k);
      }
    }
    return b;
  }

 private:
  static uint64_t size_of(const Tensor& t) { return t.n_bytes ? *t.n_bytes : natural_size(t); }

  Bytes kvs_;
  uint64_t n_kv_ = 0;
  std::vector<Tensor> tensors_;
};

}  // namespace zen::gguf::test
