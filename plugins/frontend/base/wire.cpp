#include "wire.h"

#include <boost/beast/http.hpp>

#include <cstdio>
#include <sstream>

namespace zen::http {

namespace bhttp = boost::beast::http;

namespace {

constexpr const char* kServerName = "zen-engine";

template <class Message>
void add_headers(Message& m, const HeaderList& headers) {
  for (const auto& [name, value] : headers) m.insert(name, value);
}

}  // namespace

std::string serialize_reply(const Reply& reply, bool keep_alive, const HeaderList& common) {
  bhttp::response<bhttp::string_body> res;
  res.version(11);
  res.result(reply.status);
  res.set(bhttp::field::server, kServerName);
  if (!reply.body.empty() || reply.status != 204)
    res.set(bhttp::field::content_type, reply.content_type);
  add_headers(res, reply.headers);
  add_headers(res, common);
  res.keep_alive(keep_alive);
  res.body() = reply.body;
  res.prepare_payload();
  std::ostringstream os;
  os << res;
  return os.str();
}

std::string serialize_stream_head(bool chunked, bool keep_alive, const HeaderList& common) {
  bhttp::response<bhttp::empty_body> res;
  res.version(11);
  res.result(bhttp::status::ok);
  res.set(bhttp::field::server, kServerName);
  res.set(bhttp::field::content_type, "text/event-stream");
  res.set(bhttp::field::cache_control, "no-cache");
  res.set("X-Accel-Buffering", "no");  // tell reverse proxies not to buffer the stream
  add_headers(res, common);
  res.keep_alive(keep_alive && chunked);
  if (chunked) res.chunked(true);
  std::ostringstream os;
  os << res.base();
  return os.str();
}

std::string chunk(std::string_view data) {
  char size[20];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  std::string out = size;
  out.append(data);
  out.append("\r\n");
  return out;
}

}  // namespace zen::http
