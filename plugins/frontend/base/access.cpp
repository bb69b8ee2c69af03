#include "access.h"

#include <algorithm>
#include <boost/beast/core/string.hpp>

namespace zen::http {

bool constant_time_equal(std::string_view a, std::string_view b) {
  // Walk the longer length so a short guess costs as much as a long one.
  size_t n = std::max(a.size(), b.size());
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < n; ++i) {
    unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= static_cast<unsigned char>(x ^ y);
  }
  return diff == 0;
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The token of "Bearer <token>" (scheme case-insensitive), or empty.
std::string_view bearer_token(std::string_view authorization) {
  authorization = trim(authorization);
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() <= kScheme.size() ||
      !boost::beast::iequals(authorization.substr(0, kScheme.size()), kScheme))
    return {};
  return trim(authorization.substr(kScheme.size()));
}

}  // namespace

bool authorized(const std::optional<std::string>& api_key, std::string_view authorization,
                std::string_view x_api_key) {
  if (!api_key) return true;
  // Evaluate both so the answer takes the same time whichever header the client used.
  bool by_bearer = constant_time_equal(bearer_token(authorization), *api_key);
  bool by_header = constant_time_equal(trim(x_api_key), *api_key);
  return by_bearer | by_header;
}

}  // namespace zen::http
