#include "graph/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace zen::graph {
namespace {

uint64_t align_up(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

bool overlap(const Lifetime& a, const Lifetime& b) { return a.start <= b.end && b.start <= a.end; }

}  // namespace

Packing pack(std::span<const Lifetime> items, uint64_t alignment) {
  if (alignment == 0) alignment = 1;
  std::vector<size_t> order(items.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return items[a].size != items[b].size ? items[a].size > items[b].size
                                          : items[a].start < items[b].start;
  });

  Packing out;
  out.offsets.assign(items.size(), 0);
  std::vector<size_t> placed, conflicts;
  for (size_t i : order) {
    uint64_t size = align_up(std::max<uint64_t>(items[i].size, 1), alignment);
    conflicts.clear();
    for (size_t j : placed)
      if (overlap(items[i], items[j])) conflicts.push_back(j);
    std::sort(conflicts.begin(), conflicts.end(),
              [&](size_t a, size_t b) { return out.offsets[a] < out.offsets[b]; });
    uint64_t offset = 0;
    for (size_t j : conflicts) {
      if (offset + size <= out.offsets[j]) break;  // fits in the hole before j
      offset = std::max(offset, align_up(out.offsets[j] + items[j].size, alignment));
    }
    out.offsets[i] = offset;
    out.peak = std::max(out.peak, offset + size);
    placed.push_back(i);
  }
  return out;
}

}  // namespace zen::graph
