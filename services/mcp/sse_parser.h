// Server-sent events (the text/event-stream format of the HTML standard) parsed from a byte
// stream that arrives in arbitrary chunks: "event:", "data:" (several are joined with "\n"),
// "id:" fields, comment lines, and "\n", "\r\n" or "\r" line ends. The streamable HTTP
// transport reads JSON-RPC messages from the data of these events.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace zen::mcp {

struct SseEvent {
  std::string type = "message";
  std::string data;
  std::string id;
};

class SseParser {
 public:
  using OnEvent = std::function<void(const SseEvent&)>;
  // `max_event_bytes` bounds a line and an event's data: a peer that never ends either must
  // not grow our memory without limit.
  SseParser(OnEvent on_event, size_t max_event_bytes)
      : on_event_(std::move(on_event)), max_event_bytes_(max_event_bytes) {}

  // Throws std::length_error when a line or an event grows past max_event_bytes.
  void feed(std::string_view bytes);

 private:
  void line(std::string_view text);
  void dispatch();

  OnEvent on_event_;
  size_t max_event_bytes_;
  std::string partial_;
  bool after_cr_ = false;  // a "\r" ended the last line: a "\n" right after it is the same end
  SseEvent event_;
  bool has_data_ = false;
};

}  // namespace zen::mcp
