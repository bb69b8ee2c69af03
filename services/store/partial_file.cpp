#include "store/partial_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <zen/plugin.hpp>

#include "store/store.h"

namespace zen::store {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void io_error(const std::string& what, const fs::path& path) {
  throw Error(ZEN_ERR_IO, what + " " + path.string() + ": " + std::strerror(errno));
}

}  // namespace

void fsync_directory(const fs::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) io_error("cannot open directory", dir);
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) io_error("cannot sync directory", dir);
}

PartialFile::PartialFile(const fs::path& dir, const std::string& name)
    : path_(partial_path(dir, name)), origin_path_(path_.string() + ".json") {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw Error(ZEN_ERR_IO, "cannot create the model store " + dir.string() + ": " + ec.message());
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) io_error("cannot open", path_);
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    throw Error(ZEN_ERR_IO,
                "another pull of '" + name + "' is in progress (" + path_.string() + " is locked)");
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0) io_error("cannot stat", path_);
  size_ = static_cast<uint64_t>(st.st_size);
  if (::lseek(fd_, 0, SEEK_END) < 0) io_error("cannot seek in", path_);
}

PartialFile::~PartialFile() {
  if (fd_ >= 0) ::close(fd_);
}

PartialOrigin PartialFile::origin() const {
  std::ifstream in(origin_path_);
  if (!in) return {};
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.value("source", nlohmann::json()).is_string()) return {};
  PartialOrigin origin;
  origin.source = j["source"].get<std::string>();
  if (auto v = j.find("validator"); v != j.end() && v->is_string())
    origin.validator = v->get<std::string>();
  return origin;
}

void PartialFile::set_origin(const PartialOrigin& origin) {
  nlohmann::json j{{"source", origin.source}, {"validator", origin.validator}};
  std::ofstream out(origin_path_, std::ios::trunc);
  out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  if (!out) throw Error(ZEN_ERR_IO, "cannot write " + origin_path_.string());
}

void PartialFile::truncate() {
  if (::ftruncate(fd_, 0) != 0 || ::lseek(fd_, 0, SEEK_SET) != 0)
    io_error("cannot truncate", path_);
  size_ = hashed_ = 0;
  sha_.reset();
}

void PartialFile::hash_existing() {
  if (hashed_ == size_) return;
  std::vector<char> buffer(1 << 20);
  while (hashed_ < size_) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(buffer.size(), size_ - hashed_));
    ssize_t n = ::pread(fd_, buffer.data(), want, static_cast<off_t>(hashed_));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) io_error("cannot read", path_);
    sha_.update({buffer.data(), static_cast<size_t>(n)});
    hashed_ += static_cast<uint64_t>(n);
  }
}

void PartialFile::append(std::span<const char> bytes) {
  hash_existing();
  while (!bytes.empty()) {
    ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) io_error("cannot write", path_);
    sha_.update(bytes.first(static_cast<size_t>(n)));
    bytes = bytes.subspan(static_cast<size_t>(n));
    size_ += static_cast<uint64_t>(n);
    hashed_ = size_;
  }
}

std::string PartialFile::sha256() {
  hash_existing();
  std::string digest = sha_.hex_digest();  // resets the hasher: re-hash if asked again
  hashed_ = 0;
  return digest;
}

void PartialFile::commit(const fs::path& target) {
  if (::fsync(fd_) != 0) io_error("cannot sync", path_);
  if (::rename(path_.c_str(), target.c_str()) != 0) io_error("cannot move into place", target);
  fsync_directory(target.parent_path());
  std::error_code ec;
  fs::remove(origin_path_, ec);
}

void PartialFile::discard() {
  std::error_code ec;
  fs::remove(path_, ec);
  fs::remove(origin_path_, ec);
}

}  // namespace zen::store
