// Who may call: the API key check (Bearer or x-api-key, compared in constant time) and the
// CORS origin allowlist.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zen::http {

// Equal strings, in time that depends only on the lengths (no early exit on the first
// differing byte, so response timing does not leak the key prefix by prefix).
bool constant_time_equal(std::string_view a, std::string_view b);

// True when no key is configured, or the request carries it as `Authorization: Bearer K`
// or `x-api-key: K`.
bool authorized(const std::optional<std::string>& api_key, std::string_view authorization,
                std::string_view x_api_key);

class CorsPolicy {
 public:
  explicit CorsPolicy(std::vector<std::string> origins) : origins_(std::move(origins)) {}
  bool allows(std::string_view origin) const;
  static constexpr const char* kMethods = "GET, POST, OPTIONS";
  static constexpr const char* kDefaultHeaders = "Authorization, Content-Type, x-api-key";
  static constexpr const char* kMaxAgeSeconds = "600";

 private:
  std::vector<std::string> origins_;
};

}  // namespace zen::http
