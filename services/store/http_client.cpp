#include "store/http_client.h"

#include <cctype>
#include <exception>
#include <limits>
#include <memory>

#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <zen/plugin.hpp>

namespace zen::store {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using boost::system::error_code;

constexpr size_t kChunkBytes = 256 << 10;
constexpr uint32_t kHeaderLimit = 64 << 10;  // Beast's default 8 KiB is tight for CDN headers

// Beast's string_view type differs between Boost versions; data() and size() work for all.
template <class View>
std::string text(const View& view) {
  return std::string(view.data(), view.size());
}

auto with_ec(error_code& ec) { return asio::redirect_error(asio::use_awaitable, ec); }

[[noreturn]] void fail(const std::string& message) { throw Error(ZEN_ERR_IO, message); }

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool is_redirect(unsigned status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

bool is_ip_literal(const std::string& host) {
  error_code ec;
  asio::ip::make_address(host, ec);
  return !ec;
}

std::string seconds_text(std::chrono::seconds s) { return std::to_string(s.count()) + " s"; }

// The resolver has no timeout of its own: a timer cancels it. Both live in shared state so
// a timer handler that is already queued when the lookup finishes touches nothing freed.
asio::awaitable<tcp::resolver::results_type> resolve(const Url& url, std::chrono::seconds timeout) {
  auto executor = co_await asio::this_coro::executor;
  auto resolver = std::make_shared<tcp::resolver>(executor);
  auto timed_out = std::make_shared<bool>(false);
  asio::steady_timer timer(executor, timeout);
  timer.async_wait([resolver, timed_out](error_code ec) {
    if (ec) return;
    *timed_out = true;
    resolver->cancel();
  });
  error_code ec;
  auto results = co_await resolver->async_resolve(url.host, url.port, with_ec(ec));
  timer.cancel();
  if (*timed_out)
    fail("timed out resolving host '" + url.host + "' (" + seconds_text(timeout) + ")");
  if (ec) fail("cannot resolve host '" + url.host + "': " + ec.message());
  co_return results;
}

asio::awaitable<void> connect(beast::tcp_stream& stream, const Url& url,
                              std::chrono::seconds timeout) {
  auto results = co_await resolve(url, timeout);
  stream.expires_after(timeout);
  error_code ec;
  co_await stream.async_connect(results, with_ec(ec));
  if (ec == beast::error::timeout)
    fail("timed out connecting to " + url.authority() + " (" + seconds_text(timeout) + ")");
  if (ec) fail("cannot connect to " + url.authority() + ": " + ec.message());
}

// Certificate chain against the system store, and the name (or IP) checked by OpenSSL itself
// so a mismatch shows up in the verify result with its own message.
asio::awaitable<void> handshake(beast::ssl_stream<beast::tcp_stream>& stream, const Url& url,
                                std::chrono::seconds timeout) {
  SSL* ssl = stream.native_handle();
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
  X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  bool ok = is_ip_literal(url.host) ? X509_VERIFY_PARAM_set1_ip_asc(param, url.host.c_str()) == 1
                                    // SNI names a DNS host; RFC 6066 forbids IP literals there.
                                    : SSL_set1_host(ssl, url.host.c_str()) == 1 &&
                                          SSL_set_tlsext_host_name(ssl, url.host.c_str()) == 1;
  if (!ok) fail("cannot set up TLS for host '" + url.host + "'");
  beast::get_lowest_layer(stream).expires_after(timeout);
  error_code ec;
  co_await stream.async_handshake(asio::ssl::stream_base::client, with_ec(ec));
  if (!ec) co_return;
  long verify = SSL_get_verify_result(ssl);
  if (verify != X509_V_OK)
    fail("TLS certificate verification failed for " + url.host + ": " +
         X509_verify_cert_error_string(verify));
  if (ec == beast::error::timeout)
    fail("timed out in the TLS handshake with " + url.authority() + " (" + seconds_text(timeout) +
         ")");
  fail("TLS handshake with " + url.authority() + " failed: " + ec.message());
}

std::string read_error(const Url& url, const error_code& ec, const HttpOptions& options) {
  if (ec == beast::error::timeout)
    return "no data from " + url.authority() + " for " + seconds_text(options.stall_timeout) +
           " (" + url.str() + ")";
  if (ec == http::error::partial_message || ec == http::error::end_of_stream ||
      ec == asio::error::eof || ec == asio::ssl::error::stream_truncated)
    return "connection closed by " + url.authority() + " before the end of the response (" +
           url.str() + ")";
  return "reading from " + url.authority() + " failed: " + ec.message() + " (" + url.str() + ")";
}

struct RequestLine {
  std::string method;
  std::string body;
};

struct Redirect {
  Url to;
  unsigned status;
};

// One request on a connected stream. Returns where a redirect points, else nothing (the
// response went to the handlers).
template <class Stream>
asio::awaitable<std::optional<Redirect>> exchange(Stream& stream, const Url& url,
                                                  const Headers& headers, const RequestLine& line,
                                                  const HttpOptions& options,
                                                  std::vector<Headers>& redirect_headers,
                                                  const HeadHandler& on_head,
                                                  const BodyHandler& on_body) {
  http::request<http::string_body> request;
  request.method_string(line.method);
  request.target(url.target);
  request.version(11);
  request.set(http::field::host, url.authority());
  request.set(http::field::user_agent, "zen-engine");
  request.set(http::field::accept_encoding, "identity");  // the bytes as stored, to hash them
  for (const auto& [name, value] : headers) request.set(name, value);
  if (!line.body.empty()) {
    request.body() = line.body;
    request.prepare_payload();
  }

  error_code ec;
  beast::get_lowest_layer(stream).expires_after(options.stall_timeout);
  co_await http::async_write(stream, request, with_ec(ec));
  if (ec) fail("sending the request to " + url.authority() + " failed: " + ec.message());

  beast::flat_buffer buffer;
  http::response_parser<http::buffer_body> parser;
  parser.body_limit(std::numeric_limits<std::uint64_t>::max());
  parser.header_limit(kHeaderLimit);
  beast::get_lowest_layer(stream).expires_after(options.stall_timeout);
  co_await http::async_read_header(stream, buffer, parser, with_ec(ec));
  if (ec) fail(read_error(url, ec, options));

  auto& message = parser.get();
  Headers fields;
  for (const auto& field : message)
    fields.emplace_back(text(field.name_string()), text(field.value()));
  unsigned status = message.result_int();
  std::string location = text(message[http::field::location]);
  if (is_redirect(status) && !location.empty()) {
    redirect_headers.push_back(std::move(fields));
    co_return Redirect{resolve_location(url, location), status};
  }

  Response response;
  response.status = status;
  response.reason = text(message.reason());
  response.url = url;
  response.headers = std::move(fields);
  if (auto length = parser.content_length()) response.content_length = *length;
  response.redirect_headers = redirect_headers;
  if (!on_head(response)) co_return std::nullopt;

  std::vector<char> chunk(kChunkBytes);
  while (!parser.is_done()) {
    message.body().data = chunk.data();
    message.body().size = chunk.size();
    beast::get_lowest_layer(stream).expires_after(options.stall_timeout);
    co_await http::async_read(stream, buffer, parser, with_ec(ec));
    if (ec == http::error::need_buffer) ec = {};
    size_t received = chunk.size() - message.body().size;
    if (received > 0) on_body({chunk.data(), received});  // kept even when the read then failed
    if (ec) fail(read_error(url, ec, options));
  }
  co_return std::nullopt;
}

asio::awaitable<void> request_following_redirects(Url url, Headers headers, RequestLine line,
                                                  HttpOptions options, const HeadHandler& on_head,
                                                  const BodyHandler& on_body) {
  const std::string first = url.str();
  std::vector<Headers> redirect_headers;
  for (int hop = 0;; ++hop) {
    auto executor = co_await asio::this_coro::executor;
    beast::tcp_stream tcp_stream(executor);
    co_await connect(tcp_stream, url, options.connect_timeout);
    std::optional<Redirect> next;
    if (url.tls()) {
      asio::ssl::context context(asio::ssl::context::tls_client);
      context.set_default_verify_paths();  // honours SSL_CERT_FILE / SSL_CERT_DIR
      context.set_verify_mode(asio::ssl::verify_peer);
      beast::ssl_stream<beast::tcp_stream> tls_stream(std::move(tcp_stream), context);
      co_await handshake(tls_stream, url, options.connect_timeout);
      next = co_await exchange(tls_stream, url, headers, line, options, redirect_headers, on_head,
                               on_body);
    } else {
      next = co_await exchange(tcp_stream, url, headers, line, options, redirect_headers, on_head,
                               on_body);
    }
    if (!next) co_return;
    if (hop == options.max_redirects)
      fail("too many redirects (more than " + std::to_string(options.max_redirects) + ") from " +
           first);
    if (url.tls() && !next->to.tls())
      fail("refusing a redirect from https to plain http (" + url.str() + " -> " + next->to.str() +
           ")");
    if (next->to.host != url.host) {
      std::erase_if(headers, [](const auto& h) { return iequals(h.first, "authorization"); });
    }
    // 307/308 repeat the request as it was; the older codes mean "GET the new place".
    if (next->status != 307 && next->status != 308 && line.method != "GET" &&
        line.method != "HEAD") {
      line.method = "GET";
      line.body.clear();
    }
    url = std::move(next->to);
  }
}

// Polls options.should_abort; stopping the io_context drops the request's connection. The
// request's completion cancels `timer` so that a finished request does not wait for a poll.
asio::awaitable<void> watch_for_abort(std::function<bool()> should_abort,
                                      std::shared_ptr<const bool> finished,
                                      std::shared_ptr<asio::steady_timer> timer,
                                      asio::io_context& io) {
  while (!*finished) {
    if (should_abort()) {
      io.stop();
      co_return;
    }
    timer->expires_after(std::chrono::milliseconds(50));
    error_code ec;
    co_await timer->async_wait(with_ec(ec));
  }
}

}  // namespace

std::string Response::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (iequals(key, name)) return value;
  }
  return "";
}

std::string Response::status_line() const {
  return "HTTP " + std::to_string(status) + (reason.empty() ? "" : " " + reason) + " from " +
         url.str();
}

void http_request(std::string_view method, const Url& url, const Headers& headers,
                  std::string_view body, const HttpOptions& options, const HeadHandler& on_head,
                  const BodyHandler& on_body) {
  asio::io_context io;
  std::exception_ptr error;
  auto finished = std::make_shared<bool>(false);
  auto abort_poll = std::make_shared<asio::steady_timer>(io);
  RequestLine line{std::string(method), std::string(body)};
  asio::co_spawn(io, request_following_redirects(url, headers, line, options, on_head, on_body),
                 [&error, finished, abort_poll](std::exception_ptr e) {
                   error = e;
                   *finished = true;
                   abort_poll->cancel();
                 });
  if (options.should_abort)
    asio::co_spawn(io, watch_for_abort(options.should_abort, finished, abort_poll, io),
                   asio::detached);
  io.run();
  if (!*finished)
    throw Error(ZEN_ERR_CANCELLED, std::string(method) + " " + url.str() + " abandoned");
  if (error) std::rethrow_exception(error);
}

void http_get(const Url& url, const Headers& headers, const HttpOptions& options,
              const HeadHandler& on_head, const BodyHandler& on_body) {
  http_request("GET", url, headers, {}, options, on_head, on_body);
}

std::string http_get_text(const Url& url, const Headers& headers, const HttpOptions& options,
                          size_t max_bytes) {
  std::string text;
  http_get(
      url, headers, options,
      [](const Response& response) {
        if (response.status != 200) fail(response.status_line());
        return true;
      },
      [&](std::span<const char> bytes) {
        if (text.size() + bytes.size() > max_bytes)
          fail("response from " + url.str() + " is larger than " + std::to_string(max_bytes) +
               " bytes");
        text.append(bytes.data(), bytes.size());
      });
  return text;
}

}  // namespace zen::store
