#include "gguf/writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstring>

#include "gguf/gguf.h"
#include "gguf/limits.h"
#include "gguf/text.h"
#include "types/type_traits.h"

namespace zen::gguf {

namespace {

[[noreturn]] void fail_errno(const std::string& path, const char* what, int err) {
  throw Error(path + ": cannot " + what + ": " + std::strerror(err));
}

// ---- encoding ----

using Bytes = std::vector<uint8_t>;

void put_le(Bytes& b, uint64_t v, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void put_string(Bytes& b, std::string_view s) {
  put_le(b, s.size(), 8);
  b.insert(b.end(), s.begin(), s.end());
}

bool is_signed(ValueType t) {
  return t == ValueType::I8 || t == ValueType::I16 || t == ValueType::I32 || t == ValueType::I64;
}

void put_array_payload(Bytes& b, const Array& a);

// A value's payload (what follows its type id).
void put_payload(Bytes& b, const Value& v) {
  switch (v.type()) {
    case ValueType::STRING:
      put_string(b, v.as_string());
      return;
    case ValueType::ARRAY:
      put_array_payload(b, v.as_array());
      return;
    case ValueType::F32:
      put_le(b, std::bit_cast<uint32_t>(v.as_f32()), 4);
      return;
    case ValueType::F64:
      put_le(b, std::bit_cast<uint64_t>(v.as_f64()), 8);
      return;
    case ValueType::BOOL:
      put_le(b, v.as_bool() ? 1 : 0, 1);
      return;
    default:  // integers: two's complement, truncated to the type's width
      put_le(
          b,
          is_signed(v.type()) ? static_cast<uint64_t>(v.as_int<int64_t>()) : v.as_int<uint64_t>(),
          fixed_size(v.type()));
  }
}

void put_array_payload(Bytes& b, const Array& a) {
  put_le(b, static_cast<uint32_t>(a.element_type()), 4);
  put_le(b, a.size(), 8);
  switch (a.element_type()) {
    case ValueType::STRING:
      for (size_t i = 0; i < a.size(); ++i) put_string(b, a.string_at(i));
      return;
    case ValueType::ARRAY:  // nested arrays carry no type id of their own, only a payload
      for (size_t i = 0; i < a.size(); ++i) put_array_payload(b, a.array_at(i).as_array());
      return;
    default:
      for (size_t i = 0; i < a.size(); ++i) put_payload(b, a.element(i));
  }
}

uint64_t align_up(uint64_t n, uint64_t a) { return (n + a - 1) / a * a; }

template <class T>
std::vector<uint8_t> raw_bytes(std::span<const T> items) {
  std::vector<uint8_t> raw;
  raw.reserve(items.size() * sizeof(T));
  for (const T& x : items) {
    uint64_t bits;
    if constexpr (std::is_same_v<T, float>) {
      bits = std::bit_cast<uint32_t>(x);
    } else if constexpr (std::is_same_v<T, double>) {
      bits = std::bit_cast<uint64_t>(x);
    } else {
      bits = static_cast<uint64_t>(x);
    }
    put_le(raw, bits, sizeof(T));
  }
  return raw;
}

std::string tensor_label(const std::string& name) { return "tensor " + quote(name); }

}  // namespace

// ---- value construction ----

template <MetadataScalar T>
Value value_of(T v) {
  constexpr ValueType type = detail::TypeOf<T>::v;
  if constexpr (std::is_same_v<T, float>) {
    return Value::scalar(type, std::bit_cast<uint32_t>(v));
  } else if constexpr (std::is_same_v<T, double>) {
    return Value::scalar(type, std::bit_cast<uint64_t>(v));
  } else if constexpr (std::is_same_v<T, bool>) {
    return Value::scalar(type, v ? 1 : 0);
  } else {
    // The zero-extended encoding of the value's own width, as the parser stores it.
    using U = std::make_unsigned_t<T>;
    return Value::scalar(type, static_cast<U>(v));
  }
}

Value value_of(std::string_view s) { return Value::string(std::string(s)); }

template <MetadataScalar T>
Value array_of(std::span<const T> items) {
  return Value::array(Array::scalars(detail::TypeOf<T>::v, raw_bytes(items)));
}

Value array_of(std::span<const std::string> items) {
  std::string blob;
  std::vector<uint64_t> ends;
  ends.reserve(items.size());
  for (const auto& s : items) {
    blob += s;
    ends.push_back(blob.size());
  }
  return Value::array(Array::strings(std::move(blob), std::move(ends)));
}

Value array_of_arrays(std::vector<Value> items) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (!items[i].is_array()) {
      throw Error("array_of_arrays: item " + std::to_string(i) + " is a " + items[i].type_name() +
                  ", not an array");
    }
  }
  return Value::array(Array::arrays(std::move(items)));
}

// The types GGUF metadata can hold.
template Value value_of<uint8_t>(uint8_t);
template Value value_of<int8_t>(int8_t);
template Value value_of<uint16_t>(uint16_t);
template Value value_of<int16_t>(int16_t);
template Value value_of<uint32_t>(uint32_t);
template Value value_of<int32_t>(int32_t);
template Value value_of<uint64_t>(uint64_t);
template Value value_of<int64_t>(int64_t);
template Value value_of<float>(float);
template Value value_of<double>(double);
template Value value_of<bool>(bool);
template Value array_of<uint8_t>(std::span<const uint8_t>);
template Value array_of<int8_t>(std::span<const int8_t>);
template Value array_of<uint16_t>(std::span<const uint16_t>);
template Value array_of<int16_t>(std::span<const int16_t>);
template Value array_of<uint32_t>(std::span<const uint32_t>);
template Value array_of<int32_t>(std::span<const int32_t>);
template Value array_of<uint64_t>(std::span<const uint64_t>);
template Value array_of<int64_t>(std::span<const int64_t>);
template Value array_of<float>(std::span<const float>);
template Value array_of<double>(std::span<const double>);
template Value array_of<bool>(std::span<const bool>);

// ---- the temporary file ----

// A buffered, exclusively created file next to the destination; removed on destruction
// unless committed.
class Writer::Output {
 public:
  explicit Output(const std::string& dest) : dest_(dest) {
    static std::atomic<uint64_t> counter{0};
    for (int attempt = 0; attempt < 100; ++attempt) {
      tmp_ = dest + ".partial-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
      fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd_ >= 0) break;
      if (errno != EEXIST) fail_errno(tmp_, "create", errno);
    }
    if (fd_ < 0) throw Error(dest + ": cannot create a temporary file next to it");
    buf_.reserve(kBufferBytes);
  }
  ~Output() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(tmp_.c_str());
  }

  uint64_t size() const { return size_; }

  void append(std::span<const uint8_t> b) {
    size_ += b.size();
    if (buf_.size() + b.size() > kBufferBytes) flush();
    if (b.size() >= kBufferBytes) {
      write_all(b);
    } else {
      buf_.insert(buf_.end(), b.begin(), b.end());
    }
  }
  void pad_to(uint64_t alignment) {
    static constexpr uint8_t kZeros[64] = {};
    uint64_t pad = align_up(size_, alignment) - size_;
    while (pad > 0) {
      uint64_t n = std::min<uint64_t>(pad, sizeof kZeros);
      append({kZeros, n});
      pad -= n;
    }
  }

  void commit() {
    flush();
    if (::fsync(fd_) != 0) fail_errno(tmp_, "fsync", errno);
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail_errno(tmp_, "close", errno);
    if (::rename(tmp_.c_str(), dest_.c_str()) != 0)
      fail_errno(dest_, "rename the finished file to", errno);
    committed_ = true;
    sync_directory();
  }

 private:
  static constexpr size_t kBufferBytes = size_t{4} << 20;

  void flush() {
    write_all(buf_);
    buf_.clear();
  }
  void write_all(std::span<const uint8_t> b) {
    while (!b.empty()) {
      ssize_t n = ::write(fd_, b.data(), b.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        fail_errno(tmp_, "write", errno);
      }
      b = b.subspan(static_cast<size_t>(n));
    }
  }
  // Makes the rename itself durable; best effort (some filesystems refuse fsync on dirs).
  void sync_directory() const {
    auto slash = dest_.rfind('/');
    std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : dest_.substr(0, slash);
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    (void)::fsync(fd);
    ::close(fd);
  }

  std::string dest_, tmp_;
  int fd_ = -1;
  bool committed_ = false;
  uint64_t size_ = 0;
  std::vector<uint8_t> buf_;
};

// ---- Writer ----

Writer::Writer(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw Error("GGUF writer: empty output path");
}

Writer::~Writer() = default;

void Writer::check_open_for_declarations(const char* what) const {
  if (out_) throw Error(path_ + ": cannot " + what + " once tensor data writing has begun");
}

void Writer::set(std::string_view key, Value value) {
  check_open_for_declarations("set metadata");
  const Limits limits;
  if (key.empty()) throw Error(path_ + ": empty metadata key");
  if (key.size() > limits.max_key_bytes || !is_valid_utf8(key)) {
    throw Error(path_ + ": metadata key " + quote(key) + " is not UTF-8 of at most " +
                std::to_string(limits.max_key_bytes) + " bytes");
  }
  for (auto& [k, v] : kv_) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  kv_.emplace_back(std::string(key), std::move(value));
}

bool Writer::remove(std::string_view key) {
  check_open_for_declarations("remove metadata");
  auto it = std::find_if(kv_.begin(), kv_.end(), [&](const auto& kv) { return kv.first == key; });
  if (it == kv_.end()) return false;
  kv_.erase(it);
  return true;
}

const Value* Writer::find(std::string_view key) const {
  for (const auto& [k, v] : kv_) {
    if (k == key) return &v;
  }
  return nullptr;
}

uint64_t Writer::add_tensor(std::string name, zen_type type, std::span<const uint64_t> ne) {
  check_open_for_declarations("add a tensor");
  const Limits limits;
  auto fail = [&](const std::string& what) {
    throw Error(path_ + ": " + tensor_label(name) + ": " + what);
  };
  if (name.empty()) throw Error(path_ + ": empty tensor name");
  if (name.size() > limits.max_tensor_name_bytes || !is_valid_utf8(name)) {
    fail("name is not UTF-8 of at most " + std::to_string(limits.max_tensor_name_bytes) + " bytes");
  }
  if (tensor_index_.count(name)) fail("declared twice");
  const TypeTraits* traits = type_traits(type);
  if (!traits) fail("unknown tensor type " + std::to_string(static_cast<uint32_t>(type)));
  if (ne.empty() || ne.size() > kMaxDims) {
    fail(std::to_string(ne.size()) + " dimensions (1.." + std::to_string(kMaxDims) + " allowed)");
  }
  if (std::count(ne.begin(), ne.end(), uint64_t{0})) fail("has a zero dimension");
  auto row = row_bytes(*traits, ne[0]);
  if (!row) {
    fail("ne[0]=" + std::to_string(ne[0]) + " is not a multiple of the " +
         std::string(traits->name) + " block size " + std::to_string(traits->block_size));
  }
  uint64_t bytes = *row, elements = ne[0];
  for (size_t d = 1; d < ne.size(); ++d) {
    if (__builtin_mul_overflow(bytes, ne[d], &bytes) ||
        __builtin_mul_overflow(elements, ne[d], &elements) ||
        elements > static_cast<uint64_t>(INT64_MAX)) {
      fail("size overflows");
    }
  }
  tensor_index_.emplace(name, tensors_.size());
  tensors_.push_back({std::move(name), type, {ne.begin(), ne.end()}, bytes});
  return bytes;
}

uint64_t Writer::alignment() const {
  if (out_) return alignment_;
  const Value* v = find("general.alignment");
  if (!v) return kDefaultAlignment;
  if (v->type() != ValueType::U32) {
    throw Error(path_ + ": general.alignment must be a u32, got " + v->type_name());
  }
  uint32_t a = v->as_u32();
  if (a == 0 || (a & (a - 1)) != 0 || a > Limits{}.max_alignment) {
    throw Error(path_ + ": general.alignment " + std::to_string(a) +
                " is not a power of two up to " + std::to_string(Limits{}.max_alignment));
  }
  return a;
}

void Writer::begin_data() {
  if (finished_) throw Error(path_ + ": already finished");
  if (out_) return;
  const uint64_t align = alignment();
  Bytes head = {'G', 'G', 'U', 'F'};
  put_le(head, 3, 4);
  put_le(head, tensors_.size(), 8);
  put_le(head, kv_.size(), 8);
  for (const auto& [key, value] : kv_) {
    put_string(head, key);
    put_le(head, static_cast<uint32_t>(value.type()), 4);
    put_payload(head, value);
  }
  uint64_t offset = 0;
  for (const Tensor& t : tensors_) {
    put_string(head, t.name);
    put_le(head, t.ne.size(), 4);
    for (uint64_t d : t.ne) put_le(head, d, 8);
    put_le(head, static_cast<uint32_t>(t.type), 4);
    put_le(head, offset, 8);
    offset = align_up(offset + t.n_bytes, align);
  }
  out_ = std::make_unique<Output>(path_);
  alignment_ = align;
  out_->append(head);
  out_->pad_to(align);
  end_tensor_if_full();  // nothing to wait for when there are no tensors
}

void Writer::end_tensor_if_full() {
  while (current_ < tensors_.size() && written_ == tensors_[current_].n_bytes) {
    out_->pad_to(alignment_);
    ++current_;
    written_ = 0;
  }
}

void Writer::write(std::span<const uint8_t> bytes) {
  begin_data();
  while (!bytes.empty()) {
    if (current_ == tensors_.size()) {
      throw Error(path_ + ": " + std::to_string(bytes.size()) +
                  " bytes of tensor data beyond the last declared tensor");
    }
    uint64_t room = tensors_[current_].n_bytes - written_;
    uint64_t n = std::min<uint64_t>(room, bytes.size());
    out_->append(bytes.first(n));
    written_ += n;
    bytes = bytes.subspan(n);
    end_tensor_if_full();
  }
}

void Writer::finish() {
  begin_data();
  if (current_ < tensors_.size()) {
    const Tensor& t = tensors_[current_];
    throw Error(path_ + ": " + tensor_label(t.name) + " received " + std::to_string(written_) +
                " of its " + std::to_string(t.n_bytes) + " bytes");
  }
  out_->commit();
  finished_ = true;
}

}  // namespace zen::gguf
