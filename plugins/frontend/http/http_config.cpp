#include "http_config.h"

#include "config_fields.h"

namespace zen::http {

HttpConfig parse_http_config(const std::string& json_text) {
  const frontend::ConfigSection section("frontend.http");
  HttpConfig c;
  const nlohmann::json j = section.parse(json_text);  // named: items() does not keep it alive
  for (const auto& [key, v] : j.items()) {
    if (section.listen_key(key, v, c)) continue;
    if (key == "cors_origins") {
      if (!v.is_array()) section.bad(key, "an array of origins");
      c.cors_origins.clear();
      for (const auto& o : v) c.cors_origins.push_back(section.text(o, key));
    } else if (key == "header_timeout_s") {
      c.header_timeout_s = section.seconds(v, key);
    } else if (key == "body_timeout_s") {
      c.body_timeout_s = section.seconds(v, key);
    } else {
      section.unknown(key, std::string(frontend::kListenKeys) +
                               ", cors_origins, header_timeout_s, body_timeout_s");
    }
  }
  section.tls_pair(c.ssl_cert, c.ssl_key);
  return c;
}

}  // namespace zen::http
