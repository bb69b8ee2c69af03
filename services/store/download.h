// One URL into a PartialFile, resuming what an earlier interrupted pull left: the request
// carries `Range: bytes=N-` (and If-Range when the server gave a validator); 206 appends, 200
// starts over, 416 with the full size means the bytes are all there already.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "store/http_client.h"
#include "store/partial_file.h"
#include "text/progress.h"

namespace zen::store {

struct ContentRange {
  std::optional<uint64_t> first, last;  // absent for "bytes */total"
  std::optional<uint64_t> total;        // absent for "bytes a-b/*"
};
// Parses a Content-Range header value ("bytes 100-199/200", "bytes */200"); nullopt if bad.
std::optional<ContentRange> parse_content_range(std::string_view value);

struct DownloadResult {
  uint64_t size = 0;
  std::string sha256;         // of the whole file
  std::string source_sha256;  // the digest the server announced (Hub's X-Linked-Etag), or ""
};

// Fetches `url` into `partial`. A partial whose recorded origin is not `url` is discarded
// first. Throws zen::Error on an HTTP error status, a transport failure or a short body; the
// bytes received so far stay in the partial file for the next attempt.
DownloadResult download(const Url& url, const Headers& headers, const HttpOptions& options,
                        PartialFile& partial, text::Progress& progress);

}  // namespace zen::store
