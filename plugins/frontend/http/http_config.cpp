#include "http_config.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace zen::http {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& key, const std::string& what) {
  throw std::invalid_argument("'frontend.http." + key + "' must be " + what);
}

uint64_t unsigned_in(const json& v, const std::string& key, uint64_t lo, uint64_t hi) {
  const std::string range =
      "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (!v.is_number_integer()) bad(key, range);
  if (!v.is_number_unsigned() && v.get<int64_t>() < 0) bad(key, range);
  uint64_t x = v.get<uint64_t>();
  if (x < lo || x > hi) bad(key, range);
  return x;
}

double seconds(const json& v, const std::string& key) {
  if (!v.is_number() || !(v.get<double>() > 0) || v.get<double>() > 86400)
    bad(key, "a number of seconds in (0, 86400]");
  return v.get<double>();
}

}  // namespace

HttpConfig parse_http_config(const std::string& json_text) {
  HttpConfig c;
  if (json_text.empty()) return c;
  json j = json::parse(json_text, nullptr, false);
  if (j.is_discarded())
    throw std::invalid_argument("the 'frontend.http' config section is not valid JSON");
  if (j.is_null()) return c;
  if (!j.is_object())
    throw std::invalid_argument("the 'frontend.http' config section must be an object");

  for (const auto& [key, v] : j.items()) {
    if (key == "host") {
      if (!v.is_string() || v.get<std::string>().empty()) bad(key, "a non-empty string");
      c.host = v.get<std::string>();
    } else if (key == "port") {
      c.port = static_cast<uint16_t>(unsigned_in(v, key, 0, 65535));
    } else if (key == "api_key") {
      if (v.is_null()) {
        c.api_key.reset();
      } else {
        if (!v.is_string() || v.get<std::string>().empty()) bad(key, "a non-empty string or null");
        c.api_key = v.get<std::string>();
      }
    } else if (key == "cors_origins") {
      if (!v.is_array()) bad(key, "an array of origins");
      c.cors_origins.clear();
      for (const auto& o : v) {
        if (!o.is_string() || o.get<std::string>().empty()) bad(key, "an array of origins");
        c.cors_origins.push_back(o.get<std::string>());
      }
    } else if (key == "max_body_bytes") {
      c.max_body_bytes = unsigned_in(v, key, 1024, uint64_t{1} << 34);
    } else if (key == "max_header_bytes") {
      c.max_header_bytes = static_cast<uint32_t>(unsigned_in(v, key, 1024, 1u << 24));
    } else if (key == "header_timeout_s") {
      c.header_timeout_s = seconds(v, key);
    } else if (key == "body_timeout_s") {
      c.body_timeout_s = seconds(v, key);
    } else if (key == "idle_timeout_s") {
      c.idle_timeout_s = seconds(v, key);
    } else if (key == "io_threads") {
      c.io_threads = static_cast<uint32_t>(unsigned_in(v, key, 1, 64));
    } else {
      throw std::invalid_argument(
          "'frontend.http." + key +
          "' is not a known key (known: host, port, api_key, cors_origins, max_body_bytes, "
          "max_header_bytes, header_timeout_s, body_timeout_s, idle_timeout_s, io_threads)");
    }
  }
  return c;
}

}  // namespace zen::http
