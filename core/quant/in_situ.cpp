#include "quant/in_situ.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <thread>

#include <zen/quant_codec.hpp>

#include "gguf/writer.h"
#include "quant/convert.h"
#include "text/progress.h"
#include "types/type_traits.h"

namespace zen::quant {
namespace {

// Source bytes converted between releases of a mapped tensor's pages.
constexpr uint64_t kChunkSourceBytes = uint64_t{16} << 20;

// Hands the whole pages of a mapped tensor back to the kernel: they leave this process's
// resident memory and would be read from the file again if touched (they are not: the tensor
// was replaced by its quantized copy).
void release_mapped(const uint8_t* data, uint64_t n) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) / page * page;
  const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + n) / page * page;
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

void set(std::vector<gguf::KeyValue>& kv, const std::string& key, gguf::Value v) {
  for (gguf::KeyValue& e : kv)
    if (e.key == key) {
      e.value = std::move(v);
      return;
    }
  kv.push_back({key, std::move(v)});
}

}  // namespace

std::optional<InSituOptions> in_situ_options(std::string_view type, unsigned threads,
                                             std::string label) {
  if (type.empty()) return std::nullopt;
  InSituOptions o;
  o.threads = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
  o.target = find_file_type(type);
  if (!o.target) {
    const TypeTraits* t = type_traits_by_name(type);
    for (const FileType& ft : file_types())
      if (t && ft.base == t->type && can_quantize_to(t->type)) {
        o.target = &ft;
        o.recipe.pure = true;
        break;
      }
  }
  if (!o.target) {
    std::string names;
    for (const FileType& ft : file_types())
      names += (names.empty() ? "" : ", ") + std::string(ft.name);
    throw std::invalid_argument("--isq: '" + std::string(type) + "' is neither a file type (" +
                                names + ") nor a tensor type they use (Q4_K, Q8_0, ...)");
  }
  auto bar = std::make_shared<text::Progress>(std::cerr, std::move(label), isatty(2) != 0);
  o.progress = [bar](uint64_t done, uint64_t total) {
    if (done == 0)
      bar->start(0, total);
    else
      bar->update(done);
    if (done == total) bar->finish();
  };
  return o;
}

void TensorBuffers::Free::operator()(uint8_t* p) const { std::free(p); }

// Quantized tensors are written to an unlinked temporary file ($TMPDIR), which is then mapped
// like a GGUF's tensors: while the model loads they sit in the page cache, not in this
// process's memory, and afterwards a device that keeps its own copy (the CPU device's packed
// panels) can hand the file's pages back to the kernel, which it cannot do with anonymous
// memory on a machine without swap (the weights would be held twice).
class TensorBuffers::SpillFile {
 public:
  SpillFile() {
    const std::string dir = std::filesystem::temp_directory_path().string();
    fd_ = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    dir_ = dir;
  }
  ~SpillFile() {
    if (base_) munmap(base_, size_);
    if (fd_ >= 0) ::close(fd_);
  }
  bool usable() const { return fd_ >= 0; }
  uint64_t reserve(uint64_t n) {
    const uint64_t at = (size_ + 63) / 64 * 64;
    size_ = at + n;
    return at;
  }
  void write(uint64_t at, const uint8_t* p, uint64_t n) {
    while (n > 0) {
      const ssize_t w = ::pwrite(fd_, p, n, static_cast<off_t>(at));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0)
        throw gguf::Error("cannot write the quantized weights to " + dir_ + ": " +
                          std::strerror(w < 0 ? errno : ENOSPC) +
                          " (TMPDIR chooses where they go)");
      p += w;
      at += static_cast<uint64_t>(w);
      n -= static_cast<uint64_t>(w);
    }
  }
  const uint8_t* map() {
    if (size_ == 0) return nullptr;
    void* m = mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd_, 0);
    if (m == MAP_FAILED)
      throw gguf::Error("cannot map the quantized weights: " + std::string(std::strerror(errno)));
    base_ = m;
    return static_cast<const uint8_t*>(m);
  }

 private:
  int fd_ = -1;
  std::string dir_;
  uint64_t size_ = 0;
  void* base_ = nullptr;
};

TensorBuffers::TensorBuffers() = default;

TensorBuffers::SpillFile* TensorBuffers::spill() {
  if (!spill_tried_) {
    spill_tried_ = true;
    auto file = std::make_unique<SpillFile>();
    if (file->usable()) spill_ = std::move(file);
  }
  return spill_.get();
}
TensorBuffers::~TensorBuffers() = default;
TensorBuffers::TensorBuffers(TensorBuffers&&) noexcept = default;

uint8_t* TensorBuffers::allocate(uint64_t n_bytes) {
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(64, (n_bytes + 63) / 64 * 64 + 64));
  if (!p) throw std::bad_alloc();
  buffers_.emplace_back(p);
  return p;
}

std::vector<gguf::TensorInfo> place_tensors(std::vector<SourceTensor> sources,
                                            std::vector<gguf::KeyValue>& metadata,
                                            const InSituOptions* isq, TensorBuffers& buffers,
                                            const std::string& label) {
  std::vector<TensorPlan> plans;
  uint64_t total = 0, done = 0;
  for (const SourceTensor& s : sources) total += s.info.n_bytes;
  if (isq) {
    // The plan reads names, types and shapes only: a File of the tables, without data.
    std::vector<gguf::TensorInfo> tables;
    for (const SourceTensor& s : sources) tables.push_back(s.info);
    plans = plan_conversions(gguf::File::assemble(metadata, std::move(tables), nullptr),
                             *isq->target, isq->recipe, /*allow_requantize=*/false, label);
    set(metadata, "general.file_type", gguf::value_of(isq->target->id));
    set(metadata, "general.quantization_version", gguf::value_of(kQuantizationVersion));
  }
  std::vector<gguf::TensorInfo> out;
  out.reserve(sources.size());
  if (isq && isq->progress) isq->progress(0, total);
  TensorBuffers::SpillFile* spill = isq ? buffers.spill() : nullptr;
  std::vector<std::pair<size_t, uint64_t>> spilled;  // (tensor, offset in the spill file)
  for (size_t i = 0; i < sources.size(); ++i) {
    gguf::TensorInfo t = std::move(sources[i].info);
    const auto& fill = sources[i].fill;
    const uint64_t source_bytes = t.n_bytes;
    if (!isq || plans[i].type == t.type) {
      if (fill) {
        uint8_t* dst = buffers.allocate(t.n_bytes);
        fill(dst);
        t.data = dst;
      }
    } else {
      TensorBuffers scratch;  // a filled source lives only while it is converted
      if (fill) {
        uint8_t* src = scratch.allocate(t.n_bytes);
        fill(src);
        t.data = src;
      }
      const zen_type to = plans[i].type;
      const uint64_t rows = t.n_elements / t.ne[0];
      const uint64_t n_bytes = row_bytes(to, static_cast<int64_t>(t.ne[0])) * rows;
      // A chunk of rows at a time, each chunk's mapped source released once converted, so a
      // large tensor (the token embedding) is never resident whole beside its quantized copy.
      const uint64_t in_row = t.n_bytes / rows, out_row = n_bytes / rows;
      const uint64_t chunk = std::max<uint64_t>(1, kChunkSourceBytes / in_row);
      uint8_t* dst = spill ? nullptr : buffers.allocate(n_bytes);
      const uint64_t at = spill ? spill->reserve(n_bytes) : 0;
      std::vector<uint8_t> staged(spill ? std::min(chunk, rows) * out_row : 0);
      for (uint64_t first = 0; first < rows; first += chunk) {
        const uint64_t n = std::min(chunk, rows - first);
        convert_rows(t, to, first, n, spill ? staged.data() : dst + first * out_row, isq->threads);
        if (spill) spill->write(at + first * out_row, staged.data(), n * out_row);
        if (!fill) release_mapped(t.data + first * in_row, n * in_row);
      }
      if (spill) spilled.push_back({out.size(), at});
      t.type = to;
      t.n_bytes = n_bytes;
      t.data = dst;
    }
    out.push_back(std::move(t));
    done += source_bytes;
    if (isq && isq->progress) isq->progress(done, total);
  }
  if (spill) {
    const uint8_t* base = spill->map();
    for (auto [i, at] : spilled) out[i].data = base + at;
  }
  return out;
}

gguf::File assemble_placed(std::vector<SourceTensor> sources, std::vector<gguf::KeyValue> metadata,
                           const InSituOptions* isq, std::shared_ptr<const void> keep_alive,
                           const std::string& label) {
  struct Storage {
    std::shared_ptr<const void> source;
    TensorBuffers buffers;
  };
  auto storage = std::make_shared<Storage>(Storage{std::move(keep_alive), {}});
  std::vector<gguf::TensorInfo> tensors =
      place_tensors(std::move(sources), metadata, isq, storage->buffers, label);
  return gguf::File::assemble(std::move(metadata), std::move(tensors), std::move(storage));
}

}  // namespace zen::quant
