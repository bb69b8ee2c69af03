// The work queue both BPE flavours share: candidate merges of adjacent symbols, ordered by a
// priority and then leftmost first, packed into one 64-bit key (priority high, left symbol
// index low) so the heap stays small and cache-friendly on megabyte inputs.
//
// Entries are never removed. The merge loops cache, per symbol, the merge with its right
// neighbour (recomputed for the two pairs each merge changes), and a popped entry counts only
// if that cached pair still has the popped priority. Entries with equal keys are
// interchangeable, so this performs exactly the merges of a queue whose stale entries are
// detected by comparing symbols (llama.cpp's).
#pragma once

#include <bit>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace zen::tokenizer {

class MergeQueue {
 public:
  // priority: smaller pops first.
  void push(uint32_t priority, uint32_t left) {
    heap_.push(static_cast<uint64_t>(priority) << 32 | left);
  }
  bool empty() const { return heap_.empty(); }
  struct Entry {
    uint32_t priority;
    uint32_t left;
  };
  Entry pop() {
    uint64_t key = heap_.top();
    heap_.pop();
    return {static_cast<uint32_t>(key >> 32), static_cast<uint32_t>(key)};
  }

  // A score where higher merges first, as a priority: the float's bits made order-preserving,
  // then inverted.
  static uint32_t descending(float score) {
    uint32_t bits = std::bit_cast<uint32_t>(score);
    uint32_t ascending = (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
    return ~ascending;
  }

 private:
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>> heap_;
};

// Symbols of a word being merged: a doubly linked list over an array, texts contiguous.
struct MergeSymbol {
  uint32_t begin;
  uint32_t length;  // 0 once merged into its left neighbour
  int32_t prev;     // -1 at the ends
  int32_t next;
};

// Merges symbols[left] with its right neighbour, which leaves the list.
inline void merge_with_next(std::vector<MergeSymbol>& symbols, size_t left) {
  MergeSymbol& l = symbols[left];
  MergeSymbol& r = symbols[static_cast<size_t>(l.next)];
  l.length += r.length;
  r.length = 0;
  l.next = r.next;
  if (r.next >= 0) symbols[static_cast<size_t>(r.next)].prev = static_cast<int32_t>(left);
}

}  // namespace zen::tokenizer
