#include "browser_guard.h"

#include <boost/beast/core/string.hpp>

#include <algorithm>

namespace zen::frontend {
namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "host" or "host:port" (the port all digits): sets `host`; false when what follows the last
// colon outside brackets is not a port.
bool split_port(std::string_view authority, std::string_view& host) {
  host = authority;
  const size_t colon = authority.rfind(':');
  if (colon == std::string_view::npos || authority.find(']', colon) != std::string_view::npos)
    return true;  // no port (an IPv6 literal's colons are inside its brackets)
  if (!all_digits(authority.substr(colon + 1))) return false;
  host = authority.substr(0, colon);
  return true;
}

bool is_loopback_name(std::string_view host) {
  using boost::beast::iequals;
  return iequals(host, "localhost") || host == "127.0.0.1" || host == "[::1]";
}

}  // namespace

bool is_local_origin(std::string_view origin) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (!origin.starts_with(scheme)) continue;
    std::string_view host;
    return split_port(origin.substr(scheme.size()), host) && is_loopback_name(host);
  }
  return false;
}

bool origin_allowed(std::string_view origin, const std::vector<std::string>& allowed) {
  if (origin.empty()) return true;
  if (is_local_origin(origin)) return true;
  return std::any_of(allowed.begin(), allowed.end(),
                     [&](const std::string& a) { return a == "*" || a == origin; });
}

bool loopback_host_allowed(std::string_view host_header) {
  if (host_header.empty()) return true;
  std::string_view host;
  return split_port(host_header, host) && is_loopback_name(host);
}

bool is_json_content_type(std::string_view content_type) {
  std::string_view media = content_type.substr(0, content_type.find(';'));
  while (!media.empty() && (media.back() == ' ' || media.back() == '\t')) media.remove_suffix(1);
  while (!media.empty() && (media.front() == ' ' || media.front() == '\t')) media.remove_prefix(1);
  using boost::beast::iequals;
  if (iequals(media, "application/json")) return true;
  // application/*+json (RFC 6839 structured syntax suffix)
  return media.size() > 17 && iequals(media.substr(0, 12), "application/") &&
         iequals(media.substr(media.size() - 5), "+json");
}

}  // namespace zen::frontend
