#include "mcp/sse_parser.h"

#include <stdexcept>

namespace zen::mcp {

void SseParser::feed(std::string_view bytes) {
  for (char c : bytes) {
    if (after_cr_) {
      after_cr_ = false;
      if (c == '\n') continue;
    }
    if (c == '\r' || c == '\n') {
      after_cr_ = c == '\r';
      line(partial_);
      partial_.clear();
    } else {
      partial_ += c;
      if (partial_.size() > max_event_bytes_) throw std::length_error("an event stream line");
    }
  }
}

void SseParser::line(std::string_view text) {
  if (text.empty()) {
    dispatch();
    return;
  }
  if (text.front() == ':') return;  // a comment (keep-alive)
  size_t colon = text.find(':');
  std::string_view field = text.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? "" : text.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (field == "data") {
    if (has_data_) event_.data += '\n';
    event_.data += value;
    has_data_ = true;
    if (event_.data.size() > max_event_bytes_) throw std::length_error("an event's data");
  } else if (field == "event") {
    event_.type = value;
  } else if (field == "id") {
    event_.id = value;
  }  // "retry" and unknown fields: nothing to do for a request's response stream
}

void SseParser::dispatch() {
  if (has_data_) on_event_(event_);
  event_ = SseEvent{};
  has_data_ = false;
}

}  // namespace zen::mcp
