// One safetensors file: an 8-byte little-endian header length N, N bytes of JSON
// ({"name": {"dtype", "shape", "data_offsets": [begin, end]}, ..., "__metadata__": {str: str}}),
// then the tensors' bytes. Read as strictly as the GGUF reader: the header length within the
// file and the limits, the JSON an object of known members only (no duplicate names, bounded
// nesting), each tensor's byte count equal to its shape times its type's size (overflow
// checked), and the tensors tiling the data exactly: sorted by offset they start at 0, each
// where the one before ended, the last at the end of the file (no overlap, no hole), as the
// reference implementation validates. Tensor data is zero-copy: spans into the mapping.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/mapped_file.h"
#include "safetensors/dtype.h"

namespace zen::safetensors {

// The one exception the reader throws: one line naming the file and what is wrong where.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

struct Limits {
  uint64_t max_header_bytes = uint64_t{100} << 20;  // the reference's own cap
  uint64_t max_tensors = uint64_t{1} << 20;
  uint32_t max_rank = 8;
  uint64_t max_name_bytes = 1024;
};

struct Tensor {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<uint64_t> shape;  // outermost first, as the file (and numpy, torch) has it
  uint64_t n_elements = 0;
  std::span<const uint8_t> data;
};

class File {
 public:
  // Maps and validates the file; throws Error "<path>: ...".
  static File open(const std::string& path, const Limits& limits = {});
  // Validates bytes the caller keeps alive (tests, the fuzzer).
  static File parse(std::span<const uint8_t> bytes, const std::string& where,
                    const Limits& limits = {});

  const std::vector<Tensor>& tensors() const { return tensors_; }  // in name order
  const Tensor* find(std::string_view name) const;
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

 private:
  std::shared_ptr<const gguf::MappedFile> map_;
  std::vector<Tensor> tensors_;
  std::map<std::string, size_t, std::less<>> index_;
  std::map<std::string, std::string> metadata_;
};

}  // namespace zen::safetensors
