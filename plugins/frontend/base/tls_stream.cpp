#include "tls_stream.h"

#include <stdexcept>

namespace zen::frontend {

std::unique_ptr<boost::asio::ssl::context> tls_server_context(const std::string& cert_file,
                                                              const std::string& key_file) {
  namespace ssl = boost::asio::ssl;
  auto ctx = std::make_unique<ssl::context>(ssl::context::tls_server);
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                   ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                   ssl::context::single_dh_use);
  try {
    ctx->use_certificate_chain_file(cert_file);
  } catch (const std::exception& e) {
    throw std::invalid_argument("cannot use the TLS certificate " + cert_file + ": " + e.what());
  }
  try {
    ctx->use_private_key_file(key_file, ssl::context::pem);
  } catch (const std::exception& e) {
    throw std::invalid_argument("cannot use the TLS key " + key_file + ": " + e.what());
  }
  return ctx;
}

}  // namespace zen::frontend
