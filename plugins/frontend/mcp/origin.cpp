#include "origin.h"

#include <algorithm>

namespace zen::mcp_server {
namespace {

bool is_local_origin(std::string_view origin) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (!origin.starts_with(scheme)) continue;
    std::string_view host = origin.substr(scheme.size());
    // The port (all digits) may follow the host; nothing else may.
    if (const size_t colon = host.rfind(':');
        colon != std::string_view::npos && host.find(']', colon) == std::string_view::npos) {
      const std::string_view port = host.substr(colon + 1);
      if (port.empty() ||
          !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return false;
      host = host.substr(0, colon);
    }
    return host == "localhost" || host == "127.0.0.1" || host == "[::1]";
  }
  return false;
}

}  // namespace

bool origin_allowed(std::string_view origin, const std::vector<std::string>& allowed) {
  if (origin.empty()) return true;
  if (is_local_origin(origin)) return true;
  return std::any_of(allowed.begin(), allowed.end(),
                     [&](const std::string& a) { return a == "*" || a == origin; });
}

}  // namespace zen::mcp_server
