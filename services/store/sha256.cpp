#include "store/sha256.h"

#include <cctype>

#include <openssl/evp.h>
#include <zen/plugin.hpp>

namespace zen::store {

void Sha256::Free::operator()(evp_md_ctx_st* ctx) const { EVP_MD_CTX_free(ctx); }

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_) throw Error(ZEN_ERR_OUT_OF_MEMORY, "cannot create a SHA-256 context");
  reset();
}

Sha256::~Sha256() = default;

void Sha256::reset() {
  if (EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1)
    throw Error(ZEN_ERR_INTERNAL, "SHA-256 initialisation failed");
}

void Sha256::update(std::span<const char> bytes) {
  if (bytes.empty()) return;
  if (EVP_DigestUpdate(ctx_.get(), bytes.data(), bytes.size()) != 1)
    throw Error(ZEN_ERR_INTERNAL, "SHA-256 update failed");
}

std::string Sha256::hex_digest() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_DigestFinal_ex(ctx_.get(), digest, &n) != 1)
    throw Error(ZEN_ERR_INTERNAL, "SHA-256 finalisation failed");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned i = 0; i < n; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 15];
  }
  reset();
  return hex;
}

bool is_sha256_hex(std::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string lower_hex(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace zen::store
