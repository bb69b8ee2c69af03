// Incremental SHA-256 (OpenSSL EVP), so a download is hashed as it is written.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

struct evp_md_ctx_st;

namespace zen::store {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(std::span<const char> bytes);
  // Lowercase hex of the digest; the hasher starts over afterwards.
  std::string hex_digest();
  void reset();

 private:
  struct Free {
    void operator()(evp_md_ctx_st* ctx) const;
  };
  std::unique_ptr<evp_md_ctx_st, Free> ctx_;
};

// True for exactly 64 hex digits (either case).
bool is_sha256_hex(std::string_view text);
// Lowercase copy.
std::string lower_hex(std::string_view text);

}  // namespace zen::store
