// GGUF v3 writer. Metadata and the tensor table are declared first; tensor data is then
// streamed in table order, a piece at a time, so a model never has to sit in memory whole.
// Everything goes to a temporary file next to the destination, which finish() flushes,
// fsyncs and renames over it: a reader of the destination sees the old file or the complete
// new one, and a failed or abandoned write leaves no partial file behind.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <zen/types.h>

#include "gguf/error.h"
#include "gguf/value.h"

namespace zen::gguf {

// The C++ types of GGUF's scalar metadata values: uint8_t ... int64_t, float, double, bool.
template <class T>
concept MetadataScalar = std::is_arithmetic_v<T> && requires {
  detail::TypeOf<T>::v;
};

// Metadata values from C++ values.
template <MetadataScalar T>
Value value_of(T v);
Value value_of(std::string_view s);
template <MetadataScalar T>
Value array_of(std::span<const T> items);
Value array_of(std::span<const std::string> items);
// An array whose elements are arrays (each item must be an array Value).
Value array_of_arrays(std::vector<Value> items);

class Writer {
 public:
  explicit Writer(std::string path);
  // Removes the temporary file unless finish() succeeded.
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Metadata, kept in insertion order; setting an existing key replaces its value in place.
  // general.alignment (u32, a power of two) sets the alignment of the tensor data.
  void set(std::string_view key, Value value);
  bool remove(std::string_view key);
  const Value* find(std::string_view key) const;

  // Declares the next tensor; ne[0] is innermost (GGUF order) and must be a whole number of
  // the type's blocks. Returns the tensor's data size in bytes.
  uint64_t add_tensor(std::string name, zen_type type, std::span<const uint64_t> ne);

  // Writes the header, metadata and tensor table to the temporary file. Called by the first
  // write() if not before; metadata and tensors are frozen from then on.
  void begin_data();
  // Appends to the tensor data: bytes fill the declared tensors in order, and one call may
  // end one tensor and start the next.
  void write(std::span<const uint8_t> bytes);
  // Checks that every tensor received exactly its bytes, then flushes, fsyncs and renames
  // the temporary file to the destination.
  void finish();

  const std::string& path() const { return path_; }
  uint64_t alignment() const;

 private:
  struct Tensor {
    std::string name;
    zen_type type;
    std::vector<uint64_t> ne;
    uint64_t n_bytes;
  };
  class Output;

  void check_open_for_declarations(const char* what) const;
  void end_tensor_if_full();

  std::string path_;
  std::vector<std::pair<std::string, Value>> kv_;
  std::vector<Tensor> tensors_;
  std::map<std::string, size_t, std::less<>> tensor_index_;
  std::unique_ptr<Output> out_;
  bool finished_ = false;
  uint64_t alignment_ = 0;  // fixed by begin_data()
  size_t current_ = 0;      // tensor receiving data
  uint64_t written_ = 0;    // bytes of it received so far
};

}  // namespace zen::gguf
