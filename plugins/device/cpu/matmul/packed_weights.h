// Weights kept in the packed GEMM's panel layout (gemm.h) for as long as the device is open.
//
// Packing a tile's rows in every matmul call cost a pass over the weights each step: 31 % of
// a serving step at 16 streams (Q4_K_M). A weight's bytes do not change while a device reads
// them (the scheduler's rule for placed leaves), so each of its panels is packed once, by the
// first thread that needs it, and read by every later call. Weight matrices are found by their
// first byte, type and shape; a copy of their first and last bytes (and a hash of all of them
// for small matrices) guards against another weight later taking the same address (a model
// reloaded while the device stays open, a test's weights).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <tuple>

#include <zen/graph.h>

#include "gemm.h"

namespace ZEN_CPU_NS::mm {

class PackedMatrix {
 public:
  PackedMatrix(const GemmType& type, const zen_tensor& a, const char* data);
  ~PackedMatrix();
  PackedMatrix(const PackedMatrix&) = delete;
  PackedMatrix& operator=(const PackedMatrix&) = delete;

  // Panel of rows [8 p, 8 p + 8) of matrix slice s (dims 2 and 3 flattened), packing it from
  // `rows` (wrow bytes apart; the slice's row 8 p) the first time; threads asking while
  // another packs it wait for it.
  const void* panel(int64_t slice, int64_t p, const char* rows, size_t wrow, int n_rows);
  // The bytes at `data` are still the ones packed.
  bool matches(const char* data) const;

 private:
  void release_source() const;

  const GemmType& type_;
  int64_t k_;
  int64_t panels_per_slice_;
  size_t panel_bytes_;
  char* buf_;
  std::unique_ptr<std::atomic<uint8_t>[]> state_;  // per panel: empty, packing, ready
  uint64_t extent_;                                // bytes from the first to the last weight
  const char* source_;                             // the weight's first byte
  uint64_t panels_ = 0;
  std::atomic<uint64_t> packed_{0};  // panels ready
  unsigned char head_[32], tail_[32];
  uint64_t hash_ = 0;  // of every byte, for small matrices
};

class PackedWeights {
 public:
  // The packed form of weight `a` (its first byte at data), created on first sight; nullptr
  // when its type has no packed GEMM or its rows are not contiguous blocks. Called by the
  // host thread while no kernel runs.
  PackedMatrix* find(const zen_tensor& a, const char* data);

 private:
  using Key = std::tuple<const char*, uint32_t, int64_t, int64_t, int64_t, int64_t>;
  std::map<Key, std::unique_ptr<PackedMatrix>> matrices_;
};

}  // namespace ZEN_CPU_NS::mm
