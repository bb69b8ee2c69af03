// Bytes on the wire: a Reply or a stream head as HTTP/1.1 text, and chunked framing.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reply.h"

namespace zen::http {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// `common` are headers every answer of this request carries (CORS).
std::string serialize_reply(const Reply& reply, bool keep_alive, const HeaderList& common);

// 200 text/event-stream; chunked for HTTP/1.1, close-delimited for HTTP/1.0.
std::string serialize_stream_head(bool chunked, bool keep_alive, const HeaderList& common);

std::string chunk(std::string_view data);  // one chunk of a chunked body
inline std::string last_chunk() { return "0\r\n\r\n"; }

}  // namespace zen::http
