#include "gguf/tensor_info.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "gguf/parse_value.h"
#include "gguf/text.h"
#include "types/type_traits.h"

namespace zen::gguf {

namespace {

constexpr uint64_t kMaxInt64 = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

std::string tensor_label(uint64_t index, const std::string* name) {
  std::string s = "tensor #" + std::to_string(index);
  if (name) s += " " + quote(*name);
  return s;
}

// Retired ids are worth naming: a file using them was written by an old ggml.
bool is_retired_type(uint32_t id) { return id < ZEN_TYPE_COUNT; }

void read_shape(Cursor& c, TensorInfo& t) {
  t.n_dims = c.u32("n_dims");
  if (t.n_dims == 0) throw Error("n_dims is 0; a tensor needs at least one dimension");
  if (t.n_dims > kMaxDims) {
    throw Error("n_dims " + std::to_string(t.n_dims) + " exceeds the maximum of " +
                std::to_string(kMaxDims) + " (GGML_MAX_DIMS)");
  }
  t.ne.fill(1);
  for (uint32_t d = 0; d < t.n_dims; ++d) t.ne[d] = c.u64("tensor dim");
  for (uint32_t d = 0; d < t.n_dims; ++d) {
    if (t.ne[d] == 0) {
      throw Error("dim " + std::to_string(d) + " of shape " + shape_string(t) +
                  " is 0; empty tensors are refused");
    }
    if (t.ne[d] > kMaxInt64) {
      throw Error("dim " + std::to_string(d) + " of shape " + shape_string(t) +
                  " exceeds the int64 range");
    }
  }
  uint64_t n = 1;
  for (uint32_t d = 0; d < t.n_dims; ++d) {
    if (__builtin_mul_overflow(n, t.ne[d], &n) || n > kMaxInt64) {
      throw Error("element count of shape " + shape_string(t) + " overflows int64");
    }
  }
  t.n_elements = n;
}

void read_type_and_size(Cursor& c, TensorInfo& t) {
  uint32_t id = c.u32("tensor type");
  const TypeTraits* traits = type_traits(id);
  if (!traits) {
    throw Error("unknown tensor type " + std::to_string(id) +
                (is_retired_type(id) ? " (an id ggml has retired)" : ""));
  }
  t.type = traits->type;
  auto row = row_bytes(*traits, t.ne[0]);
  if (!row) {
    throw Error("ne[0]=" + std::to_string(t.ne[0]) + " of shape " + shape_string(t) +
                " is not a multiple of " + std::string(traits->name) + " block size " +
                std::to_string(traits->block_size));
  }
  uint64_t bytes = *row;
  for (uint32_t d = 1; d < kMaxDims; ++d) {
    if (__builtin_mul_overflow(bytes, t.ne[d], &bytes)) {
      throw Error("byte size of " + std::string(traits->name) + " shape " + shape_string(t) +
                  " overflows");
    }
  }
  t.n_bytes = bytes;
}

}  // namespace

std::string shape_string(const TensorInfo& t) {
  std::string s = "[";
  for (uint32_t d = 0; d < t.n_dims && d < kMaxDims; ++d) {
    if (d) s += ", ";
    s += std::to_string(t.ne[d]);
  }
  return s + "]";
}

TensorInfo read_tensor_info(Cursor& c, const Limits& limits, uint64_t index) {
  TensorInfo t{};
  bool have_name = false;
  try {
    t.name = read_string(c, limits.max_tensor_name_bytes, "tensor name", "tensor name length");
    have_name = true;
    if (t.name.empty()) throw Error("empty tensor name");
    if (!is_valid_utf8(t.name)) throw Error("tensor name is not valid UTF-8");
    read_shape(c, t);
    read_type_and_size(c, t);
    t.offset = c.u64("tensor data offset");
  } catch (const Error& e) {
    throw Error(tensor_label(index, have_name ? &t.name : nullptr) + ": " + e.what());
  }
  return t;
}

void place_tensors(std::vector<TensorInfo>& tensors, uint64_t data_offset, uint64_t alignment,
                   std::span<const uint8_t> bytes) {
  const uint64_t size = bytes.size();
  for (size_t i = 0; i < tensors.size(); ++i) {
    TensorInfo& t = tensors[i];
    auto fail = [&](const std::string& what) {
      throw Error(tensor_label(i, &t.name) + ": " + what);
    };
    if (t.offset % alignment != 0) {
      fail("offset " + std::to_string(t.offset) + " is not a multiple of the alignment " +
           std::to_string(alignment));
    }
    uint64_t begin = 0, end = 0;
    if (__builtin_add_overflow(data_offset, t.offset, &begin) || begin >= size) {
      fail("offset " + std::to_string(t.offset) + " (data section at " +
           std::to_string(data_offset) + ") is past the end of the file (size " +
           std::to_string(size) + ")");
    }
    if (__builtin_add_overflow(begin, t.n_bytes, &end) || end > size) {
      fail("data of " + std::to_string(t.n_bytes) + " bytes at offset " + std::to_string(begin) +
           " extends past the end of the file (size " + std::to_string(size) + ")");
    }
    t.file_offset = begin;
    t.data = bytes.data() + begin;
  }
  // Sorted by start, overlap can only be with the previous tensor's range.
  std::vector<size_t> order(tensors.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return tensors[a].offset < tensors[b].offset; });
  for (size_t k = 1; k < order.size(); ++k) {
    const TensorInfo& prev = tensors[order[k - 1]];
    const TensorInfo& cur = tensors[order[k]];
    if (prev.file_offset + prev.n_bytes > cur.file_offset) {
      throw Error(tensor_label(order[k], &cur.name) + ": data at offset " +
                  std::to_string(cur.file_offset) + " overlaps " +
                  tensor_label(order[k - 1], &prev.name) + " at offset " +
                  std::to_string(prev.file_offset) + " (" + std::to_string(prev.n_bytes) +
                  " bytes)");
    }
  }
}

}  // namespace zen::gguf
