// The KV cache's bookkeeping and memory, paged: kv_size cells per layer (each holds one token's K
// and V rows) grouped in blocks of block_size cells. Every sequence has a block table; position
// p of sequence s lives in cell table[p / B] * B + p % B. Positions are append-only (0..len-1, no
// gaps) and cut back with seq_truncate. Masks, not contiguity, keep sequences apart, so several
// sequences share one pool (continuous batching).
//
// Prefix cache: full blocks can be published under the chain hash of every token up to their end;
// a new sequence whose prompt starts with the same tokens attaches them (refcounted, shared
// read-only) instead of recomputing. Published blocks nobody references stay cached, in LRU
// order, and are reclaimed only when the free list is empty. Design: docs/KV-CACHE.md.
//
// The rows live in host memory (the graph's states "cache.k.<il>" / "cache.v.<il>",
// [row, kv_size]); when the attention runs on a device that cannot read host memory, the graph
// scheduler keeps them in that device's buffers (a mirror) and host code moving rows goes
// through set_row_access.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include <zen/types.h>

namespace zen::model {

struct KvLayer {
  uint32_t k_row = 0, v_row = 0;  // elements per cell; 0 = no cache for this layer
};

class KvCache {
 public:
  // kv_size is rounded up to whole blocks.
  KvCache(std::vector<KvLayer> layers, uint32_t kv_size, zen_type type = ZEN_TYPE_F16,
          uint32_t block_size = 16);

  uint32_t size() const { return size_; }
  zen_type type() const { return type_; }
  const std::vector<KvLayer>& layers() const { return layers_; }
  // Host address of layer il's K (or V) rows; nullptr for a layer without a cache.
  void* data(uint32_t il, bool v) const;
  uint64_t bytes() const;
  uint32_t block_size() const { return block_size_; }
  uint32_t n_blocks() const { return static_cast<uint32_t>(blocks_.size()); }

  // Positions cached for seq (0 for a sequence with nothing cached).
  int32_t seq_len(int32_t seq) const;
  // Cell of position pos of seq (pos < seq_len(seq)).
  int32_t cell(int32_t seq, int32_t pos) const;
  // Appends to out the cells of seq's positions 0 .. seq_len(seq) - 1, in order.
  void seq_cells(int32_t seq, std::vector<int32_t>& out) const;
  // Blocks needed to append n tokens to seq, and blocks obtainable now (free + evictable cached
  // blocks nobody references). A scheduler admits work with these.
  uint32_t blocks_needed(int32_t seq, uint32_t n) const;
  uint32_t blocks_available() const;

  // Cells for a batch: token i appends position positions[i] to sequence seqs[i]; each
  // sequence's positions must continue its length in order (else throws zen::Error naming seq,
  // position and length). Allocates blocks (evicting least-recently-used cached blocks when the
  // free list is empty). All-or-nothing: when there is not enough room it changes nothing and
  // returns an empty vector.
  std::vector<int32_t> append(std::span<const int32_t> positions, std::span<const int32_t> seqs);
  // Cuts seq back to its first len positions (frees / unreferences blocks past them; a shared
  // block cut into is first copied, so the other owners keep theirs). seq_truncate(seq, 0)
  // forgets the sequence. Undoes a failed append; callers that rewrite history use it too.
  void seq_truncate(int32_t seq, int32_t len);
  void seq_free(int32_t seq) { seq_truncate(seq, 0); }
  // Forgets every sequence and every cached block (the counters in stats() survive).
  void clear();

  // Prefix cache. publish(): seq's FULL blocks whose tokens are tokens[0 .. k*B) become findable
  // under the chain hash of all tokens up to their end (tokens = the sequence's whole history;
  // call after the batch that wrote them ran). attach_prefix(): for an EMPTY seq, reuses the
  // longest chain of published blocks matching tokens[0..), at most max_tokens tokens (whole
  // blocks), refcounted and shared read-only; returns the number of tokens attached (seq_len
  // afterwards). Matches compare the stored tokens, not only hashes.
  // `root` keeps apart K/V computed under different weights (a LoRA mix, 0 = the model's
  // own): a block published under one root is never attached under another.
  void publish(int32_t seq, std::span<const int32_t> tokens, uint64_t root = 0);
  uint32_t attach_prefix(int32_t seq, std::span<const int32_t> tokens, uint32_t max_tokens,
                         uint64_t root = 0);

  // Cells attention must read: one past the highest cell of any referenced block, padded to pad
  // (so consecutive decode steps share a graph shape), at most size().
  uint32_t n_kv(uint32_t pad = 32) const;
  // mask[t * n_kv + j] = 0 when query t (seqs[t], positions[t]) may see cell j (a cell of
  // seqs[t]'s table holding position <= positions[t], and < window positions back when
  // window > 0), else -inf. Cells the batch writes must already be appended.
  void fill_mask(float* mask, uint32_t n_kv, std::span<const int32_t> positions,
                 std::span<const int32_t> seqs, uint32_t window) const;

  struct Stats {
    uint32_t blocks_total = 0;
    uint32_t blocks_used = 0;    // referenced by at least one sequence
    uint32_t blocks_cached = 0;  // published, referenced by none (evictable)
    uint64_t prefix_queries = 0, prefix_hit_tokens = 0;  // counters since construction
  };
  Stats stats() const;

  // The chain hash of a block: of its parent's hash and its own tokens. Tests substitute a
  // degenerate one to prove that matches never rely on the hash alone.
  using BlockHash = uint64_t (*)(uint64_t parent, std::span<const int32_t> tokens);
  void set_block_hash(BlockHash hash) { hash_ = hash; }

  // How host code reaches the rows when a device holds them (a graph::Scheduler mirror):
  // read(base, offset, dst, n) and write(base, offset, src, n), base being data(il, v).
  // Unset: plain host memory.
  struct RowAccess {
    std::function<void(const void*, uint64_t, void*, uint64_t)> read;
    std::function<void(void*, uint64_t, const void*, uint64_t)> write;
  };
  void set_row_access(RowAccess access) { access_ = std::move(access); }

 private:
  static constexpr int32_t kNone = -1;
  struct Block {
    uint32_t refs = 0;
    bool published = false;
    uint64_t hash = 0;
    // While published: a unique id (never reused), the id of the block before it in its chain
    // (0 for a first block) and its tokens. Together they pin the whole prefix exactly.
    uint64_t publish_id = 0, parent = 0;
    std::vector<int32_t> tokens;
    std::list<int32_t>::iterator lru;  // valid while published and unreferenced
  };
  struct Seq {
    std::vector<int32_t> table;  // block ids, ceil(len / B) of them
    int32_t len = 0;
  };
  struct Free {
    void operator()(void* p) const;
  };

  int32_t take_block();  // a free block, or the LRU cached one (unpublished); kNone if none
  void ref(int32_t b);
  void unref(int32_t b);
  void unpublish(int32_t b);
  void copy_cells(int32_t from_block, int32_t to_block, uint32_t n);

  std::vector<KvLayer> layers_;
  uint32_t block_size_;
  uint32_t size_;
  zen_type type_;
  std::vector<std::unique_ptr<void, Free>> k_, v_;

  std::vector<Block> blocks_;
  RowAccess access_;
  std::vector<uint8_t> scratch_;  // rows in transit when access_ is set
  std::vector<int32_t> free_;     // a min-heap: low blocks first keeps n_kv small
  std::list<int32_t> lru_;        // published, unreferenced; front = least recently used
  std::unordered_map<uint64_t, int32_t> published_;  // chain hash -> block
  std::unordered_map<int32_t, Seq> seqs_;
  uint32_t blocks_used_ = 0;
  uint64_t next_publish_id_ = 0;
  uint64_t prefix_queries_ = 0, prefix_hit_tokens_ = 0;
  BlockHash hash_;
};

}  // namespace zen::model
