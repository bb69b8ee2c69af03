// Hardened GGUF reader. A File is the parsed, fully validated header of a GGUF v2/v3 file:
// ordered metadata and a tensor table whose views point straight into the file's bytes (an
// mmap for open(), the caller's buffer for parse()). Anything inconsistent, truncated,
// oversized or overlapping is refused up front with a one-line zen::gguf::Error, so code
// that uses a File never needs to re-check a size, offset or element type.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <zen/types.h>

#include "gguf/error.h"
#include "gguf/limits.h"
#include "gguf/value.h"

namespace zen::gguf {

inline constexpr uint32_t kMaxDims = 4;  // GGML_MAX_DIMS
inline constexpr uint64_t kDefaultAlignment = 32;

struct TensorInfo {
  std::string name;
  zen_type type;
  uint32_t n_dims;
  std::array<uint64_t, kMaxDims> ne;  // ne[0] innermost (GGUF order); unused dims are 1
  uint64_t n_elements;
  uint64_t offset;       // relative to the data section, as stored in the file
  uint64_t file_offset;  // absolute offset in the file
  uint64_t n_bytes;
  const uint8_t* data;  // points into the File's bytes

  std::span<const uint64_t> dims() const { return {ne.data(), n_dims}; }
  std::span<const uint8_t> bytes() const { return {data, n_bytes}; }
};

struct KeyValue {
  std::string key;
  Value value;
};

class MappedFile;

class File {
 public:
  // Maps `path` read-only and parses it; errors are prefixed with the path. Tensor data stays
  // mapped for the File's lifetime (another process truncating the file meanwhile can still
  // fault, as with any mmap).
  static File open(const std::string& path, const Limits& limits = {});
  // Parses bytes in place; the caller keeps them alive and unchanged while the File is used.
  static File parse(std::span<const uint8_t> bytes, const Limits& limits = {});
  // A File made in memory rather than read: a model assembled from another format (a Hugging
  // Face directory, core/hf). Tensor data points wherever `storage` keeps it (mapped shards,
  // converted buffers), and the File keeps `storage` alive. Duplicate keys or tensor names are
  // an Error. file_size() is the sum of the tensors' bytes, bytes() is empty.
  static File assemble(std::vector<KeyValue> metadata, std::vector<TensorInfo> tensors,
                       std::shared_ptr<const void> storage);

  File(File&&) noexcept;
  File& operator=(File&&) noexcept;
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File();

  uint32_t version() const { return version_; }
  uint64_t alignment() const { return alignment_; }
  uint64_t data_offset() const { return data_offset_; }
  uint64_t file_size() const {
    return mapping_ || !bytes_.empty() ? bytes_.size() : assembled_bytes_;
  }
  std::span<const uint8_t> bytes() const { return bytes_; }

  // Metadata in file order.
  const std::vector<KeyValue>& metadata() const { return kv_; }
  const Value* find(std::string_view key) const;
  // The value, or Error "missing metadata key '...'".
  const Value& at(std::string_view key) const;
  // Typed lookups whose errors name the key ("metadata key 'x': expected string, got u32").
  std::string_view get_string(std::string_view key) const;
  template <detail::Integer T>
  T get_int(std::string_view key) const {
    const Value& v = at(key);
    return with_key(key, [&] { return v.as_int<T>(); });
  }
  template <detail::Integer T>
  std::optional<T> find_int(std::string_view key) const {
    if (!find(key)) return std::nullopt;
    return get_int<T>(key);
  }
  double get_float(std::string_view key) const;

  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  const TensorInfo* find_tensor(std::string_view name) const;

 private:
  File() = default;
  template <class F>
  static auto with_key(std::string_view key, F&& f) -> decltype(f());
  [[noreturn]] static void rethrow_with_key(std::string_view key, const Error& e);

  friend class Parser;

  std::unique_ptr<MappedFile> mapping_;  // null for parse() and assemble()
  std::shared_ptr<const void> storage_;  // assemble() only
  std::span<const uint8_t> bytes_;
  uint64_t assembled_bytes_ = 0;
  uint32_t version_ = 0;
  uint64_t alignment_ = kDefaultAlignment;
  uint64_t data_offset_ = 0;
  std::vector<KeyValue> kv_;
  std::map<std::string, size_t, std::less<>> kv_index_;
  std::vector<TensorInfo> tensors_;
  std::map<std::string, size_t, std::less<>> tensor_index_;
};

template <class F>
auto File::with_key(std::string_view key, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    rethrow_with_key(key, e);
  }
}

}  // namespace zen::gguf
