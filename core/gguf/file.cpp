// File: header, metadata and tensor-table parsing, in file order. Each count is checked
// against the cap in Limits and against what the remaining bytes could hold before anything
// is reserved; tensor placement is checked once alignment and the data offset are known.
#include <bit>
#include <cstdio>
#include <cstring>

#include "gguf/gguf.h"
#include "gguf/known_keys.h"
#include "gguf/mapped_file.h"
#include "gguf/parse_value.h"
#include "gguf/tensor_info.h"
#include "gguf/text.h"

namespace zen::gguf {

namespace {

// Smallest records the format allows: key length + type + 1-byte value, and name length +
// n_dims + one dim + type + offset. (Empty keys and names are refused later, by name.)
constexpr uint64_t kMinKvBytes = 8 + 4 + 1;
constexpr uint64_t kMinTensorBytes = 8 + 4 + 8 + 4 + 8;

std::string hex_bytes(std::span<const uint8_t> b) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (uint8_t x : b) {
    if (!s.empty()) s += ' ';
    s += kHex[x >> 4];
    s += kHex[x & 15];
  }
  return s;
}

void read_magic(Cursor& c) {
  auto m = c.take(4, "magic");
  if (std::memcmp(m.data(), "GGUF", 4) != 0) {
    std::string_view text(reinterpret_cast<const char*>(m.data()), 4);
    throw Error("bad magic " + quote(text) + " (bytes " + hex_bytes(m) +
                ") at offset 0: not a GGUF file");
  }
}

uint32_t read_version(Cursor& c) {
  uint32_t v = c.u32("version");
  if (v == 2 || v == 3) return v;
  if (v == 1) throw Error("GGUF version 1 is not supported (only versions 2 and 3)");
  uint32_t swapped = __builtin_bswap32(v);
  if (swapped >= 1 && swapped <= 3) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%08x", v);
    throw Error(std::string("GGUF version ") + hex + " looks byte-swapped (version " +
                std::to_string(swapped) +
                " of a big-endian file); only little-endian GGUF is supported");
  }
  throw Error("unsupported GGUF version " + std::to_string(v) + " (only versions 2 and 3)");
}

void check_count(uint64_t n, uint64_t limit, uint64_t min_record, const Cursor& c,
                 const char* what) {
  if (n > limit) {
    throw Error(std::string(what) + " " + std::to_string(n) + " exceeds the limit of " +
                std::to_string(limit));
  }
  uint64_t need = 0;
  if (__builtin_mul_overflow(n, min_record, &need) || need > c.remaining()) {
    throw Error(std::string(what) + " " + std::to_string(n) +
                " cannot fit: each record needs at least " + std::to_string(min_record) +
                " bytes and only " + std::to_string(c.remaining()) + " bytes follow offset " +
                std::to_string(c.pos()));
  }
}

std::string key_label(uint64_t index, const std::string* key) {
  std::string s = "metadata key #" + std::to_string(index);
  if (key) s += " " + quote(*key);
  return s;
}

}  // namespace

class Parser {
 public:
  static File run(std::span<const uint8_t> bytes, const Limits& limits) {
    File f;
    f.bytes_ = bytes;
    Cursor c(bytes);
    read_magic(c);
    f.version_ = read_version(c);
    uint64_t n_tensors = c.u64("tensor count");
    uint64_t n_kv = c.u64("metadata kv count");
    check_count(n_kv, limits.max_kv_count, kMinKvBytes, c, "metadata kv count");
    check_count(n_tensors, limits.max_tensor_count, kMinTensorBytes, c, "tensor count");
    read_metadata(c, n_kv, limits, f);
    f.alignment_ = check_known_keys(f.kv_, limits);
    // The metadata consumed bytes, so the tensor count is re-checked before reserving.
    check_count(n_tensors, limits.max_tensor_count, kMinTensorBytes, c, "tensor count");
    read_tensors(c, n_tensors, limits, f);
    uint64_t pad = (f.alignment_ - c.pos() % f.alignment_) % f.alignment_;
    if (__builtin_add_overflow(c.pos(), pad, &f.data_offset_)) {
      throw Error("data section offset overflows");
    }
    place_tensors(f.tensors_, f.data_offset_, f.alignment_, bytes);
    return f;
  }

 private:
  static void read_metadata(Cursor& c, uint64_t n, const Limits& limits, File& f) {
    MetadataBudget budget(limits.max_metadata_bytes);
    f.kv_.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
      std::string key;
      bool have_key = false;
      try {
        key = read_string(c, limits.max_key_bytes, "key", "key length");
        have_key = true;
        if (key.empty()) throw Error("empty key");
        if (!is_valid_utf8(key)) throw Error("key is not valid UTF-8");
        budget.charge(key.size() + sizeof(KeyValue));
        auto [it, inserted] = f.kv_index_.emplace(key, i);
        if (!inserted) throw Error("duplicate key (first at #" + std::to_string(it->second) + ")");
        ValueType type = read_value_type(c, "value type");
        f.kv_.push_back({key, read_value(c, type, limits, budget)});
      } catch (const Error& e) {
        throw Error(key_label(i, have_key ? &key : nullptr) + ": " + e.what());
      }
    }
  }

  static void read_tensors(Cursor& c, uint64_t n, const Limits& limits, File& f) {
    f.tensors_.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
      TensorInfo t = read_tensor_info(c, limits, i);
      auto [it, inserted] = f.tensor_index_.emplace(t.name, i);
      if (!inserted) {
        throw Error("tensor #" + std::to_string(i) + " " + quote(t.name) +
                    ": duplicate name (first at #" + std::to_string(it->second) + ")");
      }
      f.tensors_.push_back(std::move(t));
    }
  }
};

File File::open(const std::string& path, const Limits& limits) {
  auto mapping = std::make_unique<MappedFile>(path);
  try {
    File f = Parser::run(mapping->bytes(), limits);
    f.mapping_ = std::move(mapping);
    return f;
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
}

File File::parse(std::span<const uint8_t> bytes, const Limits& limits) {
  return Parser::run(bytes, limits);
}

File File::assemble(std::vector<KeyValue> metadata, std::vector<TensorInfo> tensors,
                    std::shared_ptr<const void> storage) {
  File f;
  f.version_ = 3;
  f.storage_ = std::move(storage);
  for (size_t i = 0; i < metadata.size(); ++i)
    if (!f.kv_index_.emplace(metadata[i].key, i).second)
      throw Error("duplicate key " + quote(metadata[i].key));
  f.kv_ = std::move(metadata);
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!f.tensor_index_.emplace(tensors[i].name, i).second)
      throw Error("duplicate tensor " + quote(tensors[i].name));
    f.assembled_bytes_ += tensors[i].n_bytes;
  }
  f.tensors_ = std::move(tensors);
  return f;
}

File::File(File&&) noexcept = default;
File& File::operator=(File&&) noexcept = default;
File::~File() = default;

const Value* File::find(std::string_view key) const {
  auto it = kv_index_.find(key);
  return it == kv_index_.end() ? nullptr : &kv_[it->second].value;
}

const Value& File::at(std::string_view key) const {
  const Value* v = find(key);
  if (!v) throw Error("missing metadata key " + quote(key));
  return *v;
}

std::string_view File::get_string(std::string_view key) const {
  const Value& v = at(key);
  return with_key(key, [&] { return v.as_string(); });
}

double File::get_float(std::string_view key) const {
  const Value& v = at(key);
  return with_key(key, [&] { return v.as_float(); });
}

void File::rethrow_with_key(std::string_view key, const Error& e) {
  throw Error("metadata key " + quote(key) + ": " + e.what());
}

const TensorInfo* File::find_tensor(std::string_view name) const {
  auto it = tensor_index_.find(name);
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

}  // namespace zen::gguf
