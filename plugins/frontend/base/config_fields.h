// Typed reads of one frontend's config section ("frontend.http", "frontend.mcp"), each failing
// with std::invalid_argument "'frontend.http.KEY' must be ..." so every plugin words its
// config errors the same way.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace zen::frontend {

// What every frontend port is configured with, under the same keys in its section.
struct ListenConfig {
  std::string host = "127.0.0.1";  // loopback unless told otherwise
  uint16_t port = 0;               // 0 = an ephemeral port, printed at start
  std::optional<std::string> api_key;
  uint64_t max_body_bytes = 8u << 20;
  uint32_t max_header_bytes = 16u << 10;
  double idle_timeout_s = 60;  // keep-alive wait; also a stalled write
  uint32_t io_threads = 2;
  uint32_t max_connections = 256;  // open at once; one more is 503 and closed
  // TLS: PEM certificate chain and private key files; both or neither.
  std::string ssl_cert, ssl_key;
};
inline constexpr const char* kListenKeys =
    "host, port, api_key, max_body_bytes, max_header_bytes, idle_timeout_s, io_threads, "
    "max_connections, ssl_cert, ssl_key";

class ConfigSection {
 public:
  explicit ConfigSection(std::string name) : name_(std::move(name)) {}

  // The section as a JSON object: empty text and null give an empty one; text that is not
  // JSON or not an object throws.
  nlohmann::json parse(const std::string& json_text) const;
  [[noreturn]] void bad(const std::string& key, const std::string& what) const;
  [[noreturn]] void unknown(const std::string& key, const std::string& known) const;
  uint64_t unsigned_in(const nlohmann::json& v, const std::string& key, uint64_t lo,
                       uint64_t hi) const;
  double seconds(const nlohmann::json& v, const std::string& key) const;    // (0, 86400]
  std::string text(const nlohmann::json& v, const std::string& key) const;  // non-empty
  // The section's ssl_cert and ssl_key (tls_stream.h): both or neither.
  void tls_pair(const std::string& cert, const std::string& key) const;
  // Reads `key` into c when it is one of kListenKeys; false for any other key.
  bool listen_key(const std::string& key, const nlohmann::json& v, ListenConfig& c) const;

 private:
  std::string name_;
};

}  // namespace zen::frontend
