// A read-only private mapping of a whole file, unmapped on destruction.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace zen::gguf {

class MappedFile {
 public:
  // Throws Error "<path>: cannot open: <reason>" on failure. An empty file maps to no bytes.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const uint8_t> bytes() const { return {data_, size_}; }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace zen::gguf
