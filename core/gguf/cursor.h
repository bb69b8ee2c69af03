// Bounds-checked little-endian reads over the file bytes. Every read states what it is
// reading so a short file yields "truncated: need 8 bytes for tensor count at offset 16, file
// has 20" rather than a crash.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "gguf/error.h"

namespace zen::gguf {

class Cursor {
 public:
  explicit Cursor(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  uint64_t pos() const { return pos_; }
  uint64_t size() const { return bytes_.size(); }
  uint64_t remaining() const { return bytes_.size() - pos_; }

  void need(uint64_t n, std::string_view what) const {
    if (n > remaining()) {
      throw Error("truncated: need " + std::to_string(n) + " bytes for " + std::string(what) +
                  " at offset " + std::to_string(pos_) + ", file has " +
                  std::to_string(bytes_.size()));
    }
  }

  std::span<const uint8_t> take(uint64_t n, std::string_view what) {
    need(n, what);
    auto out = bytes_.subspan(pos_, n);
    pos_ += n;
    return out;
  }

  // Little-endian unsigned integer of `n` bytes (1, 2, 4 or 8).
  uint64_t uint(uint32_t n, std::string_view what) {
    auto b = take(n, what);
    uint64_t v = 0;
    for (uint32_t i = 0; i < n; ++i) v |= uint64_t{b[i]} << (8 * i);
    return v;
  }
  uint32_t u32(std::string_view what) { return static_cast<uint32_t>(uint(4, what)); }
  uint64_t u64(std::string_view what) { return uint(8, what); }

 private:
  std::span<const uint8_t> bytes_;
  uint64_t pos_ = 0;
};

}  // namespace zen::gguf
