#include "config_fields.h"

#include <stdexcept>

namespace zen::frontend {

using nlohmann::json;

json ConfigSection::parse(const std::string& json_text) const {
  if (json_text.empty()) return json::object();
  json j = json::parse(json_text, nullptr, false);
  if (j.is_discarded())
    throw std::invalid_argument("the '" + name_ + "' config section is not valid JSON");
  if (j.is_null()) return json::object();
  if (!j.is_object())
    throw std::invalid_argument("the '" + name_ + "' config section must be an object");
  return j;
}

void ConfigSection::bad(const std::string& key, const std::string& what) const {
  throw std::invalid_argument("'" + name_ + "." + key + "' must be " + what);
}

void ConfigSection::unknown(const std::string& key, const std::string& known) const {
  throw std::invalid_argument("'" + name_ + "." + key + "' is not a known key (known: " + known +
                              ")");
}

uint64_t ConfigSection::unsigned_in(const json& v, const std::string& key, uint64_t lo,
                                    uint64_t hi) const {
  const std::string range =
      "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<int64_t>() < 0)) bad(key, range);
  const uint64_t x = v.get<uint64_t>();
  if (x < lo || x > hi) bad(key, range);
  return x;
}

double ConfigSection::seconds(const json& v, const std::string& key) const {
  if (!v.is_number() || !(v.get<double>() > 0) || v.get<double>() > 86400)
    bad(key, "a number of seconds in (0, 86400]");
  return v.get<double>();
}

std::string ConfigSection::text(const json& v, const std::string& key) const {
  if (!v.is_string() || v.get<std::string>().empty()) bad(key, "a non-empty string");
  return v.get<std::string>();
}

void ConfigSection::tls_pair(const std::string& cert, const std::string& key) const {
  if (cert.empty() != key.empty())
    bad(cert.empty() ? "ssl_cert" : "ssl_key",
        "given with ssl_key/ssl_cert: TLS needs both the certificate and the key");
}

bool ConfigSection::listen_key(const std::string& key, const nlohmann::json& v,
                               ListenConfig& c) const {
  if (key == "host")
    c.host = text(v, key);
  else if (key == "port")
    c.port = static_cast<uint16_t>(unsigned_in(v, key, 0, 65535));
  else if (key == "api_key")
    c.api_key = v.is_null() ? std::nullopt : std::optional(text(v, key));
  else if (key == "max_body_bytes")
    c.max_body_bytes = unsigned_in(v, key, 1024, uint64_t{1} << 34);
  else if (key == "max_header_bytes")
    c.max_header_bytes = static_cast<uint32_t>(unsigned_in(v, key, 1024, 1u << 24));
  else if (key == "idle_timeout_s")
    c.idle_timeout_s = seconds(v, key);
  else if (key == "io_threads")
    c.io_threads = static_cast<uint32_t>(unsigned_in(v, key, 1, 64));
  else if (key == "max_connections")
    c.max_connections = static_cast<uint32_t>(unsigned_in(v, key, 1, 1u << 20));
  else if (key == "ssl_cert")
    c.ssl_cert = text(v, key);
  else if (key == "ssl_key")
    c.ssl_key = text(v, key);
  else
    return false;
  return true;
}

}  // namespace zen::frontend
