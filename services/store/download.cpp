#include "store/download.h"

#include <cctype>
#include <charconv>

#include <zen/plugin.hpp>

#include "store/sha256.h"

namespace zen::store {

namespace {

std::optional<uint64_t> parse_u64(std::string_view s) {
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string unquoted(std::string value) {
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
    value = value.substr(1, value.size() - 2);
  return value;
}

// The Hugging Face Hub names an LFS file's sha256 in X-Linked-Etag (on its redirect to the
// CDN, or on the response itself).
std::string announced_sha256(const Response& response) {
  std::vector<const Headers*> all{&response.headers};
  for (const Headers& h : response.redirect_headers) all.push_back(&h);
  for (const Headers* headers : all) {
    for (const auto& [name, value] : *headers) {
      if (lowercase(name) == "x-linked-etag") {
        std::string digest = unquoted(value);
        if (is_sha256_hex(digest)) return lower_hex(digest);
      }
    }
  }
  return "";
}

// What If-Range may carry: a strong ETag, else Last-Modified.
std::string validator_of(const Response& response) {
  std::string etag = response.header("ETag");
  if (!etag.empty() && !etag.starts_with("W/")) return etag;
  return response.header("Last-Modified");
}

[[noreturn]] void fail(const std::string& message) { throw Error(ZEN_ERR_IO, message); }

}  // namespace

std::optional<ContentRange> parse_content_range(std::string_view value) {
  if (!value.starts_with("bytes ")) return std::nullopt;
  value.remove_prefix(6);
  size_t slash = value.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  std::string_view range = value.substr(0, slash), total = value.substr(slash + 1);
  ContentRange result;
  if (total != "*") {
    result.total = parse_u64(total);
    if (!result.total) return std::nullopt;
  }
  if (range == "*") return result.total ? std::optional(result) : std::nullopt;
  size_t dash = range.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  result.first = parse_u64(range.substr(0, dash));
  result.last = parse_u64(range.substr(dash + 1));
  if (!result.first || !result.last || *result.last < *result.first) return std::nullopt;
  if (result.total && *result.last >= *result.total) return std::nullopt;
  return result;
}

DownloadResult download(const Url& url, const Headers& headers, const HttpOptions& options,
                        PartialFile& partial, text::Progress& progress) {
  PartialOrigin origin = partial.origin();
  if (partial.size() > 0 && origin.source != url.str()) partial.truncate();

  DownloadResult result;
  // A second round only after a 416 that says the partial does not fit the resource.
  for (int round = 0; round < 2; ++round) {
    const uint64_t offset = partial.size();
    Headers request_headers = headers;
    if (offset > 0) {
      request_headers.emplace_back("Range", "bytes=" + std::to_string(offset) + "-");
      if (!origin.validator.empty()) request_headers.emplace_back("If-Range", origin.validator);
    }
    bool restart = false, already_complete = false;
    std::optional<uint64_t> total;

    auto on_head = [&](const Response& response) {
      result.source_sha256 = announced_sha256(response);
      if (response.status == 206 && offset > 0) {
        auto range = parse_content_range(response.header("Content-Range"));
        if (!range || !range->first || *range->first != offset)
          fail("asked " + response.url.str() + " for bytes from " + std::to_string(offset) +
               ", got Content-Range '" + response.header("Content-Range") + "'");
        total = range->total;
      } else if (response.status == 200) {
        partial.truncate();
        origin = {url.str(), validator_of(response)};
        partial.set_origin(origin);
        total = response.content_length;
      } else if (response.status == 416 && offset > 0) {
        auto range = parse_content_range(response.header("Content-Range"));
        already_complete = range && range->total && *range->total == offset;
        if (!already_complete) {
          partial.truncate();
          restart = true;
        }
        return false;
      } else {
        fail(response.status_line());
      }
      progress.start(partial.size(), total);
      return true;
    };
    auto on_body = [&](std::span<const char> bytes) {
      partial.append(bytes);
      progress.update(partial.size());
    };
    http_get(url, request_headers, options, on_head, on_body);
    if (restart) continue;
    if (!already_complete) {
      if (total && partial.size() != *total)
        fail("download of " + url.str() + " ended at " + std::to_string(partial.size()) + " of " +
             std::to_string(*total) + " bytes");
      progress.finish();
    }
    result.size = partial.size();
    result.sha256 = partial.sha256();
    return result;
  }
  fail("the server refused to resume " + url.str() + " and then refused the whole file");
}

}  // namespace zen::store
