// Defences against requests that a web page makes a browser send to a local server: cross-site
// request forgery (a page on any site may POST to http://127.0.0.1) and DNS rebinding (a page
// whose own host name later resolves to 127.0.0.1 may also read the answers). Shared by the
// http and mcp frontends; docs/HTTP-API.md "Browsers".
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace zen::frontend {

// A localhost origin: http or https, host localhost, 127.0.0.1 or [::1], any port.
bool is_local_origin(std::string_view origin);

// True for no Origin at all (not a browser), a local origin, or one listed in `allowed`
// ("*" allows any).
bool origin_allowed(std::string_view origin, const std::vector<std::string>& allowed);

// The Host header of a request to a server bound to a loopback address: only localhost,
// 127.0.0.1 or [::1] (any case), optionally with a port, pass; so does no Host at all
// (HTTP/1.0 clients, never a browser). A rebound name ("evil.example:3690") does not.
bool loopback_host_allowed(std::string_view host);

// The media type of a Content-Type header is application/json or ends in "+json"
// (parameters such as "; charset=utf-8" are ignored). Browsers can send text/plain,
// multipart/form-data and application/x-www-form-urlencoded cross-site without a preflight;
// never this.
bool is_json_content_type(std::string_view content_type);

}  // namespace zen::frontend
