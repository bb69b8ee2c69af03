// Typed reads of one frontend's config section ("frontend.http", "frontend.mcp"), each failing
// with std::invalid_argument "'frontend.http.KEY' must be ..." so every plugin words its
// config errors the same way.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace zen::frontend {

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

 private:
  std::string name_;
};

}  // namespace zen::frontend
