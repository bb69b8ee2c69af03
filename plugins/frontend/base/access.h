// Who may call: the API key check (Bearer or x-api-key, compared in constant time) and the
// CORS preflight answer.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace zen::http {

// Equal strings, in time that depends only on the lengths (no early exit on the first
// differing byte, so response timing does not leak the key prefix by prefix).
bool constant_time_equal(std::string_view a, std::string_view b);

// True when no key is configured, or the request carries it as `Authorization: Bearer K`
// or `x-api-key: K`.
bool authorized(const std::optional<std::string>& api_key, std::string_view authorization,
                std::string_view x_api_key);

// What a CORS preflight from an allowed origin is answered with (which origins are allowed:
// browser_guard.h).
struct CorsPolicy {
  static constexpr const char* kMethods = "GET, POST, OPTIONS";
  static constexpr const char* kDefaultHeaders = "Authorization, Content-Type, x-api-key";
  static constexpr const char* kMaxAgeSeconds = "600";
};

}  // namespace zen::http
