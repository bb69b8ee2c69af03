// TLS for the frontends' ports (--ssl-cert/--ssl-key; frontend.http and frontend.mcp): the
// server context made from the PEM files, and the byte stream of one connection, plain TCP or
// TLS over it. Both frontends use these, so both ports speak TLS the same way.
//
// Stream reads and writes as an Asio stream, so Beast's parsers and asio::async_write take
// either kind; a connection does not know which it has beyond starting the handshake.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>

#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace zen::frontend {

// A TLS 1.2+ server context from a PEM certificate chain and its private key. Throws
// std::invalid_argument naming the file that cannot be used.
std::unique_ptr<boost::asio::ssl::context> tls_server_context(const std::string& cert_file,
                                                              const std::string& key_file);

class Stream {
 public:
  using executor_type = boost::asio::ip::tcp::socket::executor_type;

  // `tls` null: plain TCP. Otherwise the context outlives the stream (the server owns it).
  Stream(boost::asio::ip::tcp::socket socket, boost::asio::ssl::context* tls) {
    if (tls)
      tls_.emplace(std::move(socket), *tls);
    else
      tcp_.emplace(std::move(socket));
  }

  executor_type get_executor() { return tcp().get_executor(); }
  bool is_tls() const { return tls_.has_value(); }
  boost::asio::ip::tcp::socket& tcp() { return tls_ ? tls_->next_layer() : *tcp_; }

  // TLS only: the server side of the handshake.
  template <class Handler>
  void async_handshake(Handler&& handler) {
    tls_->async_handshake(boost::asio::ssl::stream_base::server, std::forward<Handler>(handler));
  }

  // Handlers only (no other completion tokens): both branches then return void.
  template <class Buffers, class Handler>
  void async_read_some(const Buffers& buffers, Handler&& handler) {
    if (tls_)
      tls_->async_read_some(buffers, std::forward<Handler>(handler));
    else
      tcp_->async_read_some(buffers, std::forward<Handler>(handler));
  }
  template <class Buffers, class Handler>
  void async_write_some(const Buffers& buffers, Handler&& handler) {
    if (tls_)
      tls_->async_write_some(buffers, std::forward<Handler>(handler));
    else
      tcp_->async_write_some(buffers, std::forward<Handler>(handler));
  }

  // On the TCP socket below (a TLS close_notify is not waited for: the peer is leaving).
  void shutdown(boost::asio::ip::tcp::socket::shutdown_type what, boost::system::error_code& ec) {
    tcp().shutdown(what, ec);
  }
  void close(boost::system::error_code& ec) { tcp().close(ec); }
  void cancel(boost::system::error_code& ec) { tcp().cancel(ec); }

 private:
  std::optional<boost::asio::ip::tcp::socket> tcp_;
  std::optional<boost::asio::ssl::stream<boost::asio::ip::tcp::socket>> tls_;
};

}  // namespace zen::frontend
