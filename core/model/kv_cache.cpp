#include "model/kv_cache.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>

#include <zen/plugin.hpp>

#include "types/type_traits.h"

namespace zen::model {
namespace {

// The types set_rows writes (the CPU device converts F32 rows to them).
uint64_t element_bytes(zen_type t) {
  if (t != ZEN_TYPE_F32 && t != ZEN_TYPE_F16 && t != ZEN_TYPE_BF16)
    throw Error(ZEN_ERR_INVALID_ARG,
                "KV cache: type " + std::to_string(t) + " is not supported (F32, F16 or BF16)");
  return type_traits(t)->block_bytes;
}

void* alloc_rows(uint64_t bytes) {
  if (bytes == 0) return nullptr;
  const uint64_t rounded = (bytes + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, rounded);
  if (!p)
    throw Error(ZEN_ERR_OUT_OF_MEMORY,
                "KV cache: cannot allocate " + std::to_string(bytes >> 20) + " MiB");
  std::memset(p, 0, rounded);  // stale NaNs in never-written cells would poison masked sums
  return p;
}

// splitmix64's finalizer: every input bit reaches every output bit.
uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t chain_hash(uint64_t parent, std::span<const int32_t> tokens) {
  uint64_t h = mix(parent + 0x9e3779b97f4a7c15ull);
  for (int32_t t : tokens) h = mix(h ^ static_cast<uint32_t>(t));
  return h;
}

uint32_t div_up(uint64_t a, uint32_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

}  // namespace

void KvCache::Free::operator()(void* p) const { std::free(p); }

KvCache::KvCache(std::vector<KvLayer> layers, uint32_t kv_size, zen_type type, uint32_t block_size)
    : layers_(std::move(layers)), block_size_(block_size), type_(type), hash_(chain_hash) {
  if (kv_size == 0) throw Error(ZEN_ERR_INVALID_ARG, "KV cache: size must be > 0");
  if (block_size == 0) throw Error(ZEN_ERR_INVALID_ARG, "KV cache: block size must be > 0");
  const uint32_t n_blocks = div_up(kv_size, block_size);
  if (uint64_t{n_blocks} * block_size > std::numeric_limits<int32_t>::max())
    throw Error(ZEN_ERR_INVALID_ARG, "KV cache: " + std::to_string(kv_size) + " cells is too many");
  size_ = n_blocks * block_size;
  const uint64_t eb = element_bytes(type);
  for (const KvLayer& l : layers_) {
    k_.emplace_back(alloc_rows(eb * l.k_row * size_));
    v_.emplace_back(alloc_rows(eb * l.v_row * size_));
  }
  blocks_.resize(n_blocks);
  clear();
}

void* KvCache::data(uint32_t il, bool v) const {
  if (il >= layers_.size()) return nullptr;
  return (v ? v_ : k_)[il].get();
}

uint64_t KvCache::bytes() const {
  uint64_t n = 0;
  for (const KvLayer& l : layers_) n += (uint64_t{l.k_row} + l.v_row) * size_;
  return n * element_bytes(type_);
}

int32_t KvCache::seq_len(int32_t seq) const {
  auto it = seqs_.find(seq);
  return it == seqs_.end() ? 0 : it->second.len;
}

int32_t KvCache::cell(int32_t seq, int32_t pos) const {
  auto it = seqs_.find(seq);
  if (it == seqs_.end() || pos < 0 || pos >= it->second.len)
    throw Error(ZEN_ERR_INVALID_ARG, "KV cache: sequence " + std::to_string(seq) +
                                         " has no position " + std::to_string(pos));
  const int32_t b = static_cast<int32_t>(block_size_);
  return it->second.table[static_cast<size_t>(pos / b)] * b + pos % b;
}

void KvCache::seq_cells(int32_t seq, std::vector<int32_t>& out) const {
  auto it = seqs_.find(seq);
  if (it == seqs_.end()) return;
  const Seq& s = it->second;
  const int32_t bs = static_cast<int32_t>(block_size_);
  for (int32_t p = 0; p < s.len; ++p)
    out.push_back(s.table[static_cast<size_t>(p / bs)] * bs + p % bs);
}

uint32_t KvCache::blocks_needed(int32_t seq, uint32_t n) const {
  auto it = seqs_.find(seq);
  const uint64_t len = it == seqs_.end() ? 0 : static_cast<uint64_t>(it->second.len);
  const uint64_t have = it == seqs_.end() ? 0 : it->second.table.size();
  const uint64_t need = div_up(len + n, block_size_);
  return need > have ? static_cast<uint32_t>(need - have) : 0;
}

uint32_t KvCache::blocks_available() const {
  return static_cast<uint32_t>(free_.size() + lru_.size());
}

int32_t KvCache::take_block() {
  if (!free_.empty()) {
    std::pop_heap(free_.begin(), free_.end(), std::greater<>());
    const int32_t b = free_.back();
    free_.pop_back();
    return b;
  }
  if (lru_.empty()) return kNone;
  const int32_t b = lru_.front();
  unpublish(b);
  return b;
}

void KvCache::ref(int32_t b) {
  Block& blk = blocks_[static_cast<size_t>(b)];
  if (blk.refs++ > 0) return;
  ++blocks_used_;
  if (blk.published) lru_.erase(blk.lru);
}

void KvCache::unref(int32_t b) {
  Block& blk = blocks_[static_cast<size_t>(b)];
  if (--blk.refs > 0) return;
  --blocks_used_;
  if (blk.published) {
    blk.lru = lru_.insert(lru_.end(), b);
  } else {
    free_.push_back(b);
    std::push_heap(free_.begin(), free_.end(), std::greater<>());
  }
}

void KvCache::unpublish(int32_t b) {
  Block& blk = blocks_[static_cast<size_t>(b)];
  if (!blk.published) return;
  auto it = published_.find(blk.hash);
  if (it != published_.end() && it->second == b) published_.erase(it);
  if (blk.refs == 0) lru_.erase(blk.lru);
  blk.published = false;
  blk.publish_id = 0;
  blk.tokens.clear();
}

void KvCache::copy_cells(int32_t from_block, int32_t to_block, uint32_t n) {
  const uint64_t eb = element_bytes(type_);
  for (size_t il = 0; il < layers_.size(); ++il) {
    for (bool v : {false, true}) {
      const uint64_t row = eb * (v ? layers_[il].v_row : layers_[il].k_row);
      auto* base = static_cast<uint8_t*>(data(static_cast<uint32_t>(il), v));
      if (!base || row == 0) continue;
      const uint64_t from = row * block_size_ * static_cast<uint64_t>(from_block);
      const uint64_t to = row * block_size_ * static_cast<uint64_t>(to_block);
      if (!access_.read) {
        std::memcpy(base + to, base + from, row * n);
        continue;
      }
      scratch_.resize(row * n);
      access_.read(base, from, scratch_.data(), row * n);
      access_.write(base, to, scratch_.data(), row * n);
    }
  }
}

std::vector<int32_t> KvCache::append(std::span<const int32_t> positions,
                                     std::span<const int32_t> seqs) {
  if (positions.size() != seqs.size())
    throw Error(ZEN_ERR_INVALID_ARG, "KV cache: append with " + std::to_string(positions.size()) +
                                         " positions for " + std::to_string(seqs.size()) +
                                         " sequence ids");
  // The batch's sequences with the length each reaches, in first-appearance order (a batch
  // holds few sequences: a linear search beats hashing).
  struct Grow {
    int32_t seq, len;
  };
  std::vector<Grow> grows;
  size_t last = 0;
  for (size_t i = 0; i < positions.size(); ++i) {
    const int32_t s = seqs[i];
    if (grows.empty() || grows[last].seq != s) {
      last = 0;
      while (last < grows.size() && grows[last].seq != s) ++last;
      if (last == grows.size()) {
        if (s < 0)
          throw Error(ZEN_ERR_INVALID_ARG, "KV cache: negative sequence id " + std::to_string(s));
        grows.push_back({s, seq_len(s)});
      }
    }
    if (positions[i] != grows[last].len)
      throw Error(ZEN_ERR_INVALID_ARG, "KV cache: sequence " + std::to_string(s) + " holds " +
                                           std::to_string(grows[last].len) +
                                           " positions; the batch appends position " +
                                           std::to_string(positions[i]));
    ++grows[last].len;
  }
  uint64_t needed = 0;
  for (const Grow& g : grows)
    needed += blocks_needed(g.seq, static_cast<uint32_t>(g.len - seq_len(g.seq)));
  if (needed > blocks_available()) return {};

  for (const Grow& g : grows) {
    Seq& s = seqs_[g.seq];
    while (s.table.size() < div_up(static_cast<uint64_t>(g.len), block_size_)) {
      const int32_t b = take_block();  // cannot fail: counted above
      ref(b);
      s.table.push_back(b);
    }
  }
  std::vector<int32_t> cells(positions.size());
  const int32_t bs = static_cast<int32_t>(block_size_);
  const Seq* s = nullptr;
  for (size_t i = 0; i < positions.size(); ++i) {
    if (i == 0 || seqs[i] != seqs[i - 1]) s = &seqs_.find(seqs[i])->second;
    cells[i] = s->table[static_cast<size_t>(positions[i] / bs)] * bs + positions[i] % bs;
  }
  for (const Grow& g : grows) seqs_[g.seq].len = g.len;
  return cells;
}

void KvCache::seq_truncate(int32_t seq, int32_t len) {
  if (len < 0)
    throw Error(ZEN_ERR_INVALID_ARG, "KV cache: truncating sequence " + std::to_string(seq) +
                                         " to negative length " + std::to_string(len));
  auto it = seqs_.find(seq);
  if (it == seqs_.end() || len >= it->second.len) return;
  Seq& s = it->second;
  const size_t keep = div_up(static_cast<uint64_t>(len), block_size_);
  const uint32_t partial = static_cast<uint32_t>(len) % block_size_;
  // Cutting into a block other sequences share: the cut sequence gets a private copy of the
  // cells it keeps, because it will write the rest. Check for room before changing anything.
  const bool copy = partial != 0 && blocks_[static_cast<size_t>(s.table[keep - 1])].refs > 1;
  if (copy) {
    uint32_t room = blocks_available();
    for (size_t i = keep; i < s.table.size(); ++i)
      room += blocks_[static_cast<size_t>(s.table[i])].refs == 1;
    if (room == 0)
      throw Error(ZEN_ERR_OUT_OF_MEMORY, "KV cache full: cutting sequence " + std::to_string(seq) +
                                             " inside a shared block needs a free block");
  }
  for (size_t i = keep; i < s.table.size(); ++i) unref(s.table[i]);
  s.table.resize(keep);
  s.len = len;
  if (partial != 0) {
    const int32_t b = s.table.back();
    if (copy) {
      const int32_t fresh = take_block();
      ref(fresh);
      copy_cells(b, fresh, partial);
      unref(b);
      s.table.back() = fresh;
    } else {
      unpublish(b);  // it is partial now and will be overwritten
    }
  }
  if (len == 0) seqs_.erase(it);
}

void KvCache::clear() {
  for (Block& b : blocks_) b = Block{};
  free_.resize(blocks_.size());
  for (size_t i = 0; i < free_.size(); ++i) free_[i] = static_cast<int32_t>(i);  // sorted: a heap
  lru_.clear();
  published_.clear();
  seqs_.clear();
  blocks_used_ = 0;
}

namespace {
// A chain's start: publish id 0 for the plain model; a root's own value (with the top bit,
// which publish ids never reach) for blocks computed under another one (a LoRA mix).
uint64_t chain_start(uint64_t root) { return root ? root | (1ull << 63) : 0; }
}  // namespace

void KvCache::publish(int32_t seq, std::span<const int32_t> tokens, uint64_t root) {
  auto it = seqs_.find(seq);
  if (it == seqs_.end()) return;
  const Seq& s = it->second;
  const size_t full = std::min(static_cast<size_t>(s.len), tokens.size()) / block_size_;
  uint64_t hash = root, parent = chain_start(root);
  for (size_t k = 0; k < full; ++k) {
    std::span<const int32_t> own = tokens.subspan(k * block_size_, block_size_);
    hash = hash_(hash, own);
    const int32_t b = s.table[k];
    Block& blk = blocks_[static_cast<size_t>(b)];
    auto same = [&](const Block& x) {
      return x.hash == hash && x.parent == parent &&
             std::equal(own.begin(), own.end(), x.tokens.begin(), x.tokens.end());
    };
    if (blk.published) {
      if (!same(blk)) return;  // tokens differ from what this block was published with
      parent = blk.publish_id;
      continue;
    }
    auto found = published_.find(hash);
    if (found != published_.end()) {
      // The same tokens computed twice: keep the published copy and chain on it (its content
      // equals this block's). Different tokens under the same hash: stop, never guess.
      const Block& twin = blocks_[static_cast<size_t>(found->second)];
      if (!same(twin)) return;
      parent = twin.publish_id;
      continue;
    }
    blk.published = true;
    blk.hash = hash;
    blk.parent = parent;
    blk.publish_id = ++next_publish_id_;
    blk.tokens.assign(own.begin(), own.end());
    published_.emplace(hash, b);
    parent = blk.publish_id;
  }
}

uint32_t KvCache::attach_prefix(int32_t seq, std::span<const int32_t> tokens, uint32_t max_tokens,
                                uint64_t root) {
  if (seq < 0)
    throw Error(ZEN_ERR_INVALID_ARG, "KV cache: negative sequence id " + std::to_string(seq));
  if (seq_len(seq) != 0)
    throw Error(ZEN_ERR_INVALID_ARG, "KV cache: attach_prefix to sequence " + std::to_string(seq) +
                                         ", which already holds " + std::to_string(seq_len(seq)) +
                                         " positions");
  ++prefix_queries_;
  const size_t blocks = std::min<size_t>(max_tokens, tokens.size()) / block_size_;
  std::vector<int32_t> chain;
  uint64_t hash = root, parent = chain_start(root);
  for (size_t k = 0; k < blocks; ++k) {
    std::span<const int32_t> own = tokens.subspan(k * block_size_, block_size_);
    hash = hash_(hash, own);
    auto found = published_.find(hash);
    if (found == published_.end()) break;
    const Block& blk = blocks_[static_cast<size_t>(found->second)];
    // The parent's publish id pins the whole prefix: ids are never reused, so an evicted and
    // republished parent cannot vouch for a child written after other tokens.
    if (blk.parent != parent ||
        !std::equal(own.begin(), own.end(), blk.tokens.begin(), blk.tokens.end()))
      break;
    chain.push_back(found->second);
    parent = blk.publish_id;
  }
  if (chain.empty()) return 0;
  Seq& s = seqs_[seq];
  for (int32_t b : chain) ref(b);
  s.table = std::move(chain);
  s.len = static_cast<int32_t>(s.table.size() * block_size_);
  prefix_hit_tokens_ += static_cast<uint64_t>(s.len);
  return static_cast<uint32_t>(s.len);
}

uint32_t KvCache::n_kv(uint32_t pad) const {
  uint32_t top = 0;
  for (size_t b = blocks_.size(); b-- > 0;)
    if (blocks_[b].refs > 0) {
      top = static_cast<uint32_t>(b + 1) * block_size_;
      break;
    }
  if (pad > 1) top = (top + pad - 1) / pad * pad;
  return std::min(std::max(top, 1u), size_);
}

void KvCache::fill_mask(float* mask, uint32_t n_kv, std::span<const int32_t> positions,
                        std::span<const int32_t> seqs, uint32_t window) const {
  constexpr float kHidden = -std::numeric_limits<float>::infinity();
  std::fill(mask, mask + positions.size() * n_kv, kHidden);
  const int32_t bs = static_cast<int32_t>(block_size_);
  const Seq* s = nullptr;
  for (size_t t = 0; t < positions.size(); ++t) {
    if (!s || seqs[t] != seqs[t - 1]) {
      auto it = seqs_.find(seqs[t]);
      s = it == seqs_.end() ? nullptr : &it->second;
      if (!s) continue;
    }
    float* row = mask + t * n_kv;
    const int32_t p = std::min(positions[t], s->len - 1);
    const int32_t lo = window > 0 ? std::max<int64_t>(0, int64_t{positions[t]} - window + 1) : 0;
    for (int32_t q = lo; q <= p; ++q) {
      const uint32_t c = static_cast<uint32_t>(s->table[static_cast<size_t>(q / bs)] * bs + q % bs);
      if (c < n_kv) row[c] = 0.0f;
    }
  }
}

KvCache::Stats KvCache::stats() const {
  Stats st;
  st.blocks_total = n_blocks();
  st.blocks_used = blocks_used_;
  st.blocks_cached = static_cast<uint32_t>(lru_.size());
  st.prefix_queries = prefix_queries_;
  st.prefix_hit_tokens = prefix_hit_tokens_;
  return st;
}

}  // namespace zen::model
