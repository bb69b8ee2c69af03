#include "model/kv_cache.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
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

}  // namespace

void KvCache::Free::operator()(void* p) const { std::free(p); }

KvCache::KvCache(std::vector<KvLayer> layers, uint32_t kv_size, zen_type type)
    : layers_(std::move(layers)), size_(kv_size), type_(type), cells_(kv_size) {
  if (kv_size == 0) throw Error(ZEN_ERR_INVALID_ARG, "KV cache: size must be > 0");
  const uint64_t eb = element_bytes(type);
  for (const KvLayer& l : layers_) {
    k_.emplace_back(alloc_rows(eb * l.k_row * kv_size));
    v_.emplace_back(alloc_rows(eb * l.v_row * kv_size));
  }
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

std::vector<int32_t> KvCache::find_slots(uint32_t n) const {
  std::vector<int32_t> slots;
  if (n > size_ - used_) return slots;
  slots.reserve(n);
  for (uint32_t i = 0; i < size_ && slots.size() < n; ++i)
    if (cells_[i].seq < 0) slots.push_back(static_cast<int32_t>(i));
  return slots;
}

void KvCache::commit(std::span<const int32_t> slots, std::span<const int32_t> positions,
                     std::span<const int32_t> seqs) {
  for (size_t i = 0; i < slots.size(); ++i) {
    Cell& c = cells_.at(static_cast<size_t>(slots[i]));
    if (c.seq < 0) ++used_;
    c.pos = positions[i];
    c.seq = seqs[i];
  }
}

uint32_t KvCache::n_kv(uint32_t pad) const {
  uint32_t top = 0;
  for (uint32_t i = size_; i-- > 0;)
    if (cells_[i].seq >= 0) {
      top = i + 1;
      break;
    }
  if (pad > 1) top = (top + pad - 1) / pad * pad;
  return std::min(std::max(top, 1u), size_);
}

void KvCache::seq_rm(int32_t seq, int32_t p0, int32_t p1) {
  for (Cell& c : cells_) {
    if (c.seq < 0 || (seq >= 0 && c.seq != seq)) continue;
    if (c.pos < p0 || (p1 >= 0 && c.pos >= p1)) continue;
    c = Cell{};
    --used_;
  }
}

void KvCache::release(std::span<const int32_t> slots) {
  for (int32_t s : slots) {
    Cell& c = cells_.at(static_cast<size_t>(s));
    if (c.seq >= 0) --used_;
    c = Cell{};
  }
}

void KvCache::clear() {
  std::fill(cells_.begin(), cells_.end(), Cell{});
  used_ = 0;
}

int32_t KvCache::seq_pos_max(int32_t seq) const {
  int32_t m = -1;
  for (const Cell& c : cells_)
    if (c.seq == seq) m = std::max(m, c.pos);
  return m;
}

void KvCache::fill_mask(float* mask, uint32_t n_kv, std::span<const int32_t> positions,
                        std::span<const int32_t> seqs, uint32_t window) const {
  constexpr float kHidden = -std::numeric_limits<float>::infinity();
  for (size_t t = 0; t < positions.size(); ++t) {
    float* row = mask + t * n_kv;
    const int32_t p = positions[t], s = seqs[t];
    for (uint32_t j = 0; j < n_kv; ++j) {
      const Cell& c = cells_[j];
      bool visible = c.seq == s && c.pos <= p;
      if (window > 0 && visible) visible = static_cast<int64_t>(p) - c.pos < window;
      row[j] = visible ? 0.0f : kHidden;
    }
  }
}

}  // namespace zen::model
