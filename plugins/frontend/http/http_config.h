// The http frontend's settings: the "http" section of the serve configuration, checked key by
// key so a typo is an error naming it rather than a silently ignored limit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config_fields.h"

namespace zen::http {

struct HttpConfig : frontend::ListenConfig {
  HttpConfig() {
    port = 3690;
    max_connections = 512;
  }
  std::vector<std::string> cors_origins;  // exact origins, or "*"
  // Seconds (fractions allowed).
  double header_timeout_s = 10;  // the whole request head
  double body_timeout_s = 30;    // the whole body
};

// Parses the JSON text of the section (empty text or "null" = all defaults). Throws
// std::invalid_argument naming the key on an unknown key or a bad value.
HttpConfig parse_http_config(const std::string& json_text);

}  // namespace zen::http
