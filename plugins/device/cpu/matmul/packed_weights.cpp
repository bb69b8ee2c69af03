#include "packed_weights.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>

#include "vec_dot.h"

namespace ZEN_CPU_NS::mm {
namespace {

constexpr uint64_t kHugePage = 2u << 20;

enum : uint8_t { kEmpty, kPacking, kReady };

// Matrices up to this size (tiny models', tests') are checked whole on every lookup: their
// weights can be mostly zeros at both ends and cost nothing to hash.
constexpr uint64_t kHashWhole = 64u << 10;

uint64_t hash_bytes(const char* p, uint64_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ull, w;
  uint64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  for (; i < n; ++i) h = (h ^ static_cast<unsigned char>(p[i])) * 0x100000001b3ull;
  return h;
}

uint64_t extent(const zen_tensor& a, const WeightType& wt) {
  uint64_t e = static_cast<uint64_t>(a.ne[0] / wt.blck) * wt.bytes;
  for (int d = 1; d < 4; ++d) e += static_cast<uint64_t>(a.ne[d] - 1) * a.nb[d];
  return e;
}

}  // namespace

PackedMatrix::PackedMatrix(const GemmType& type, const zen_tensor& a, const char* data)
    : type_(type),
      k_(a.ne[0]),
      panels_per_slice_((a.ne[1] + kPanelRows - 1) / kPanelRows),
      panel_bytes_(type.panel_bytes(a.ne[0])),
      extent_(extent(a, *weight_type(a.type))),
      source_(data) {
  const uint64_t panels = static_cast<uint64_t>(panels_per_slice_) * a.ne[2] * a.ne[3];
  panels_ = panels;
  const uint64_t bytes = panels * panel_bytes_;
  // Large matrices on huge pages (fewer TLB misses while they stream); small ones would waste
  // most of their last 2 MiB page, resident once touched.
  const bool huge = bytes >= 16 * kHugePage;
  const uint64_t align = huge ? kHugePage : 64;
  buf_ = static_cast<char*>(std::aligned_alloc(align, (bytes + align - 1) / align * align));
  if (!buf_) throw std::bad_alloc();
  if (huge) madvise(buf_, (bytes + align - 1) / align * align, MADV_HUGEPAGE);  // a hint
  state_ = std::make_unique<std::atomic<uint8_t>[]>(panels);
  for (uint64_t i = 0; i < panels; ++i) state_[i].store(kEmpty, std::memory_order_relaxed);
  const size_t n = std::min<uint64_t>(sizeof head_, extent_);
  std::memset(head_, 0, sizeof head_);
  std::memset(tail_, 0, sizeof tail_);
  std::memcpy(head_, data, n);
  std::memcpy(tail_, data + extent_ - n, n);
  if (extent_ <= kHashWhole) hash_ = hash_bytes(data, extent_);
}

PackedMatrix::~PackedMatrix() { std::free(buf_); }

bool PackedMatrix::matches(const char* data) const {
  const size_t n = std::min<uint64_t>(sizeof head_, extent_);
  return std::memcmp(head_, data, n) == 0 && std::memcmp(tail_, data + extent_ - n, n) == 0 &&
         (extent_ > kHashWhole || hash_bytes(data, extent_) == hash_);
}

const void* PackedMatrix::panel(int64_t slice, int64_t p, const char* rows, size_t wrow,
                                int n_rows) {
  const int64_t i = slice * panels_per_slice_ + p;
  char* out = buf_ + static_cast<uint64_t>(i) * panel_bytes_;
  std::atomic<uint8_t>& st = state_[i];
  if (st.load(std::memory_order_acquire) == kReady) return out;
  uint8_t expected = kEmpty;
  if (st.compare_exchange_strong(expected, kPacking, std::memory_order_acquire)) {
    type_.pack(k_, rows, wrow, n_rows, out);
    st.store(kReady, std::memory_order_release);
    if (packed_.fetch_add(1, std::memory_order_acq_rel) + 1 == panels_) release_source();
    return out;
  }
  while (st.load(std::memory_order_acquire) != kReady) std::this_thread::yield();
  return out;
}

// Once every panel is packed, the weight's own rows are read again only where decode does not
// take the panels (GemmType::min_columns_kept > 1). Their pages (a mapped model file's) are
// then handed back to the kernel, so the process does not hold the weights twice. PAGEOUT
// never changes memory's contents (anonymous memory without swap just stays); the next read
// of a page faults it back in.
void PackedMatrix::release_source() const {
#ifdef MADV_PAGEOUT
  if (type_.min_columns_kept > 1) return;
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t begin = (reinterpret_cast<uintptr_t>(source_) + page - 1) / page * page;
  const uint64_t end = (reinterpret_cast<uintptr_t>(source_) + extent_) / page * page;
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_PAGEOUT);
#endif
}

PackedMatrix* PackedWeights::find(const zen_tensor& a, const char* data) {
  const GemmType* g = gemm_type(a.type);
  const WeightType* wt = weight_type(a.type);
  if (!g || !wt || wt->blck == 1) return nullptr;
  const Key key{data, a.type, a.ne[0], a.ne[1], a.ne[2], a.ne[3]};
  auto it = matrices_.find(key);
  if (it != matrices_.end() && !it->second->matches(data)) {
    matrices_.erase(it);
    it = matrices_.end();
  }
  if (it == matrices_.end())
    it = matrices_.emplace(key, std::make_unique<PackedMatrix>(*g, a, data)).first;
  return it->second.get();
}

}  // namespace ZEN_CPU_NS::mm
