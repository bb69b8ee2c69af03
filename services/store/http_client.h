// A minimal HTTP/1.1 client (Boost.Beast) for downloads and the MCP client: plain or TLS
// (certificate and host name verified against the system store, SNI set), redirects followed,
// connect and stall timeouts, an optional request body, the response body streamed to the
// caller in chunks, and an abort hook for a caller that stops waiting. Every failure is a
// zen::Error with one line naming the host or URL: DNS, refused connection, TLS verification,
// timeout.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/url.h"

namespace zen::store {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpOptions {
  std::chrono::seconds connect_timeout{30};  // DNS + TCP connect + TLS handshake
  std::chrono::seconds stall_timeout{60};    // longest wait for any byte of the response
  int max_redirects = 10;
  // Polled about every 50 ms while the request runs: returning true abandons it (the
  // connection is dropped and http_request throws zen::Error with status ZEN_ERR_CANCELLED).
  std::function<bool()> should_abort;
};

struct Response {
  unsigned status = 0;
  std::string reason;
  Url url;  // the URL that answered (after redirects)
  Headers headers;
  std::optional<uint64_t> content_length;
  // The headers of the redirect responses on the way, first hop first (some hosts put the
  // file's digest there, e.g. the Hugging Face Hub's X-Linked-Etag).
  std::vector<Headers> redirect_headers;

  // First value of a header (case-insensitive name), or "".
  std::string header(std::string_view name) const;
  // "HTTP 404 Not Found from <url>".
  std::string status_line() const;
};

// Called with the final (non-redirect) response's head. Return true to receive the body.
using HeadHandler = std::function<bool(const Response&)>;
using BodyHandler = std::function<void(std::span<const char>)>;

// One request: `method` ("GET", "POST", "DELETE"...) with extra headers and a body (sent with
// Content-Length when not empty; the caller sets Content-Type). Redirects: 307/308 repeat the
// method and body, 301/302/303 turn a non-GET request into a GET without body. Authorization
// is dropped on a redirect to another host. Throws zen::Error on transport failure or a
// truncated body; HTTP error statuses are passed to on_head (the caller decides).
void http_request(std::string_view method, const Url& url, const Headers& headers,
                  std::string_view body, const HttpOptions& options, const HeadHandler& on_head,
                  const BodyHandler& on_body);

// GET `url` with extra request headers. Authorization is dropped on a redirect to another
// host (a token for the Hub is not sent to its CDN). Throws zen::Error on transport failure
// or a truncated body; HTTP error statuses are passed to on_head (the caller decides).
void http_get(const Url& url, const Headers& headers, const HttpOptions& options,
              const HeadHandler& on_head, const BodyHandler& on_body);

// A small text resource (a manifest): status 200 required (else zen::Error with the status
// line), at most max_bytes.
std::string http_get_text(const Url& url, const Headers& headers, const HttpOptions& options,
                          size_t max_bytes = 1 << 20);

}  // namespace zen::store
