// DNS-rebinding protection for the HTTP transport: a web page on any site can make a browser
// send requests to 127.0.0.1, so a request carrying a browser Origin is served only when that
// origin is itself local or explicitly allowed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace zen::mcp_server {

// True for no Origin at all (not a browser), a localhost origin (http or https, host
// localhost, 127.0.0.1 or [::1], any port), or one listed in `allowed` ("*" allows any).
bool origin_allowed(std::string_view origin, const std::vector<std::string>& allowed);

}  // namespace zen::mcp_server
