// The KV cache's bookkeeping and memory: kv_size cells per layer, each cell holding one token's
// K and V rows for one sequence. Cells are handed out first-fit, so live cells stay packed at
// the low end and attention reads only cells [0, n_kv). Masks, not contiguity, keep sequences
// apart, so several sequences share one pool (continuous batching) and a sequence can be cut
// back (seq_rm) without moving anything.
//
// The rows live in host memory as F16 (the graph's states "cache.k.<il>" / "cache.v.<il>",
// [row, kv_size]); a device that is not host-visible would need them in its own buffers.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include <zen/types.h>

namespace zen::model {

struct KvLayer {
  uint32_t k_row = 0, v_row = 0;  // elements per cell; 0 = no cache for this layer
};

class KvCache {
 public:
  KvCache(std::vector<KvLayer> layers, uint32_t kv_size, zen_type type = ZEN_TYPE_F16);

  uint32_t size() const { return size_; }
  zen_type type() const { return type_; }
  const std::vector<KvLayer>& layers() const { return layers_; }
  // Host address of layer il's K (or V) rows; nullptr for a layer without a cache.
  void* data(uint32_t il, bool v) const;
  uint64_t bytes() const;

  // Cells for n new tokens (first fit), or an empty vector when fewer than n are free.
  std::vector<int32_t> find_slots(uint32_t n) const;
  // Records that cell slots[i] now holds position positions[i] of sequence seqs[i].
  void commit(std::span<const int32_t> slots, std::span<const int32_t> positions,
              std::span<const int32_t> seqs);
  // Cells attention must read to see every live cell: one past the highest used cell, padded
  // to `pad` (so consecutive decode steps share a graph shape), at most size().
  uint32_t n_kv(uint32_t pad = 32) const;
  // Frees sequence seq's cells whose position is in [p0, p1) (p1 < 0: to the end); seq < 0: all
  // sequences.
  void seq_rm(int32_t seq, int32_t p0, int32_t p1);
  // Frees exactly these cells (undoes a commit whose batch failed).
  void release(std::span<const int32_t> slots);
  void clear();
  // Highest position cached for seq, or -1.
  int32_t seq_pos_max(int32_t seq) const;
  uint32_t used() const { return used_; }

  // mask[t * n_kv + j] = 0 when query t (sequence seqs[t], position positions[t]) may see cell
  // j, else -inf. window > 0 also hides cells `window` or more positions back. Cells the
  // current batch writes must already be committed.
  void fill_mask(float* mask, uint32_t n_kv, std::span<const int32_t> positions,
                 std::span<const int32_t> seqs, uint32_t window) const;

 private:
  struct Cell {
    int32_t pos = -1;
    int32_t seq = -1;  // -1: free
  };
  struct Free {
    void operator()(void* p) const;
  };

  std::vector<KvLayer> layers_;
  uint32_t size_;
  zen_type type_;
  std::vector<Cell> cells_;
  uint32_t used_ = 0;
  std::vector<std::unique_ptr<void, Free>> k_, v_;
};

}  // namespace zen::model
