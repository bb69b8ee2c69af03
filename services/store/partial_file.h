// A download in progress: dir/NAME.partial, hashed as it grows, locked against a second pull
// of the same name, and moved into place (fsync, rename, fsync of the directory) only when
// complete and verified. A sidecar dir/NAME.partial.json records where the bytes came from,
// so a later pull resumes only the same source.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "store/sha256.h"

namespace zen::store {

// fsync of a directory, so a rename in it is durable; zen::Error naming it on failure.
void fsync_directory(const std::filesystem::path& dir);

struct PartialOrigin {
  std::string source;     // what was being fetched (the URL before redirects)
  std::string validator;  // the response's strong ETag or Last-Modified, for If-Range
};

class PartialFile {
 public:
  // Creates dir (and parents) and opens or creates dir/NAME.partial; throws zen::Error when
  // another pull holds it.
  PartialFile(const std::filesystem::path& dir, const std::string& name);
  ~PartialFile();
  PartialFile(const PartialFile&) = delete;
  PartialFile& operator=(const PartialFile&) = delete;

  const std::filesystem::path& path() const { return path_; }
  uint64_t size() const { return size_; }

  // Empty origin when there is no sidecar (or it cannot be read).
  PartialOrigin origin() const;
  void set_origin(const PartialOrigin& origin);

  void truncate();
  void append(std::span<const char> bytes);
  // SHA-256 of the whole content (bytes present before this run are read and hashed first).
  std::string sha256();

  // fsync, then rename to `target` and fsync the directory; the sidecar is removed.
  void commit(const std::filesystem::path& target);
  // Deletes the partial file and its sidecar.
  void discard();

 private:
  void hash_existing();

  std::filesystem::path path_, origin_path_;
  int fd_ = -1;
  uint64_t size_ = 0;
  uint64_t hashed_ = 0;  // bytes of the file already fed to sha_
  Sha256 sha_;
};

}  // namespace zen::store
