#include "http_config.h"

#include "config_fields.h"

namespace zen::http {

HttpConfig parse_http_config(const std::string& json_text) {
  const frontend::ConfigSection section("frontend.http");
  HttpConfig c;
  const nlohmann::json j = section.parse(json_text);  // named: items() does not keep it alive
  for (const auto& [key, v] : j.items()) {
    if (key == "host") {
      c.host = section.text(v, key);
    } else if (key == "port") {
      c.port = static_cast<uint16_t>(section.unsigned_in(v, key, 0, 65535));
    } else if (key == "api_key") {
      if (v.is_null()) {
        c.api_key.reset();
      } else {
        c.api_key = section.text(v, key);
      }
    } else if (key == "cors_origins") {
      if (!v.is_array()) section.bad(key, "an array of origins");
      c.cors_origins.clear();
      for (const auto& o : v) c.cors_origins.push_back(section.text(o, key));
    } else if (key == "max_body_bytes") {
      c.max_body_bytes = section.unsigned_in(v, key, 1024, uint64_t{1} << 34);
    } else if (key == "max_header_bytes") {
      c.max_header_bytes = static_cast<uint32_t>(section.unsigned_in(v, key, 1024, 1u << 24));
    } else if (key == "header_timeout_s") {
      c.header_timeout_s = section.seconds(v, key);
    } else if (key == "body_timeout_s") {
      c.body_timeout_s = section.seconds(v, key);
    } else if (key == "idle_timeout_s") {
      c.idle_timeout_s = section.seconds(v, key);
    } else if (key == "io_threads") {
      c.io_threads = static_cast<uint32_t>(section.unsigned_in(v, key, 1, 64));
    } else if (key == "ssl_cert") {
      c.ssl_cert = section.text(v, key);
    } else if (key == "ssl_key") {
      c.ssl_key = section.text(v, key);
    } else if (key == "max_connections") {
      c.max_connections = static_cast<uint32_t>(section.unsigned_in(v, key, 1, 1u << 20));
    } else {
      section.unknown(
          key,
          "host, port, api_key, cors_origins, max_body_bytes, "
          "max_header_bytes, header_timeout_s, body_timeout_s, idle_timeout_s, io_threads, "
          "max_connections, ssl_cert, ssl_key");
    }
  }
  section.tls_pair(c.ssl_cert, c.ssl_key);
  return c;
}

}  // namespace zen::http
