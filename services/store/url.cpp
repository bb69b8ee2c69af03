#include "store/url.h"

#include <cctype>
#include <charconv>
#include <vector>

#include <zen/plugin.hpp>

namespace zen::store {

namespace {

[[noreturn]] void bad_url(std::string_view text, const std::string& why) {
  throw Error(ZEN_ERR_INVALID_ARG, "invalid URL '" + std::string(text) + "': " + why);
}

bool is_unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

// Removes "." and ".." segments of an absolute path (RFC 3986 5.2.4); the query is kept.
std::string normalize_target(std::string_view target) {
  std::string_view path = target, query;
  if (size_t q = target.find('?'); q != std::string_view::npos) {
    path = target.substr(0, q);
    query = target.substr(q);
  }
  std::vector<std::string_view> out;
  size_t start = 1;  // path starts with '/'
  bool trailing_slash = false;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view seg = path.substr(start, end - start);
    trailing_slash = end == path.size() && (seg == "." || seg == "..");
    if (seg == "..") {
      if (!out.empty()) out.pop_back();
    } else if (seg != ".") {
      out.push_back(seg);
    }
    start = end + 1;
  }
  std::string result;
  for (std::string_view seg : out) result += "/" + std::string(seg);
  if (result.empty() || trailing_slash) result += "/";
  return result + std::string(query);
}

}  // namespace

std::string Url::authority() const {
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  bool default_port = (scheme == "http" && port == "80") || (scheme == "https" && port == "443");
  return default_port ? h : h + ":" + port;
}

std::string Url::str() const { return scheme + "://" + authority() + target; }

Url parse_url(std::string_view text) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
      bad_url(text, "contains whitespace or a control character");
  }
  size_t sep = text.find("://");
  if (sep == std::string_view::npos) bad_url(text, "expected http:// or https://");
  Url url;
  for (char c : text.substr(0, sep))
    url.scheme += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (url.scheme != "http" && url.scheme != "https") bad_url(text, "expected http:// or https://");
  std::string_view rest = text.substr(sep + 3);
  if (size_t hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
  size_t path_start = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, path_start);
  std::string_view target = path_start == std::string_view::npos ? "/" : rest.substr(path_start);
  if (authority.find('@') != std::string_view::npos)
    bad_url(text, "credentials in URLs are not supported");

  std::string_view host = authority, port;
  if (!authority.empty() && authority.front() == '[') {  // IPv6 literal
    size_t close = authority.find(']');
    if (close == std::string_view::npos) bad_url(text, "unterminated IPv6 address");
    host = authority.substr(1, close - 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') bad_url(text, "unexpected characters after the IPv6 address");
      port = after.substr(1);
    }
  } else if (size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty()) bad_url(text, "no host");
  url.host = std::string(host);
  if (port.empty()) {
    url.port = url.tls() ? "443" : "80";
  } else {
    unsigned value = 0;
    auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || ptr != port.data() + port.size() || value == 0 || value > 65535)
      bad_url(text, "bad port '" + std::string(port) + "'");
    url.port = std::to_string(value);
  }
  url.target = target.front() == '?' ? "/" + std::string(target) : normalize_target(target);
  return url;
}

Url resolve_location(const Url& base, std::string_view location) {
  if (location.find("://") != std::string_view::npos) return parse_url(location);
  if (location.starts_with("//")) return parse_url(base.scheme + ":" + std::string(location));
  Url url = base;
  if (location.empty()) return url;
  if (location.front() == '/') {
    url.target = normalize_target(location);
  } else if (location.front() == '?') {
    url.target = base.target.substr(0, base.target.find('?')) + std::string(location);
  } else {
    std::string dir = base.target.substr(0, base.target.find('?'));
    dir = dir.substr(0, dir.rfind('/') + 1);
    url.target = normalize_target(dir + std::string(location));
  }
  for (char c : url.target) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
      bad_url(location, "contains whitespace or a control character");
  }
  return url;
}

std::string encode_path_segment(std::string_view segment) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char ch : segment) {
    auto c = static_cast<unsigned char>(ch);
    if (is_unreserved(c)) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace zen::store
