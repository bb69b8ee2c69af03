#include "gguf/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "gguf/error.h"

namespace zen::gguf {

namespace {
[[noreturn]] void fail(const std::string& path, const char* what, int err) {
  throw Error(path + ": cannot " + what + ": " + std::strerror(err));
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};
}  // namespace

MappedFile::MappedFile(const std::string& path) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) fail(path, "open", errno);
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) fail(path, "stat", errno);
  // Directories and devices would "map" as something other than the file the user named.
  if (!S_ISREG(st.st_mode)) throw Error(path + ": cannot open: not a regular file");
  size_ = static_cast<size_t>(st.st_size);
  if (size_ == 0) return;
  void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, f.fd, 0);
  if (p == MAP_FAILED) fail(path, "mmap", errno);
  data_ = static_cast<const uint8_t*>(p);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

}  // namespace zen::gguf
