// The small part of URL handling a model download needs: absolute http(s) URLs split into
// what a connection and a request line use, redirects' Location resolved against the URL
// that answered, and path segments percent-encoded when a URL is built from names.
#pragma once

#include <string>
#include <string_view>

namespace zen::store {

struct Url {
  std::string scheme;  // "http" or "https"
  std::string host;    // without brackets for IPv6 literals
  std::string port;    // always set: explicit, else 80 / 443
  std::string target;  // path + query, starting with '/'

  bool tls() const { return scheme == "https"; }
  // host[:port] as the Host header spells it (the port only when not the scheme's default).
  std::string authority() const;
  std::string str() const;
};

// Parses an absolute http:// or https:// URL (a fragment is dropped); throws zen::Error
// naming the URL when it is something else or malformed (no host, bad port, spaces).
Url parse_url(std::string_view text);

// The URL a redirect's Location header points to: absolute ("https://cdn/x"), scheme-relative
// ("//cdn/x"), absolute-path ("/x") or relative to the base's directory ("x", "../x").
Url resolve_location(const Url& base, std::string_view location);

// Percent-encodes everything except RFC 3986 unreserved characters, for one path segment.
std::string encode_path_segment(std::string_view segment);

}  // namespace zen::store
