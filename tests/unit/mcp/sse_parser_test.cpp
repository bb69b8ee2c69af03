#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "mcp/sse_parser.h"

namespace zen::mcp {
namespace {

std::vector<SseEvent> parse_in_pieces(const std::string& stream, size_t piece) {
  std::vector<SseEvent> events;
  SseParser parser([&](const SseEvent& e) { events.push_back(e); }, 1 << 20);
  for (size_t at = 0; at < stream.size(); at += piece)
    parser.feed(std::string_view(stream).substr(at, piece));
  return events;
}

// What the MCP SDK's server sends for a tools/call over streamable HTTP, with a keep-alive
// comment, a multi-line data field and the three kinds of line ends mixed in.
const std::string kStream =
    ": keep-alive\n\n"
    "event: message\r\n"
    "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\r\n\r\n"
    "id: 7\rdata: {\"a\":\rdata:1}\r\r"
    "data:no-space\n"
    "retry: 100\n\n"
    "data: not dispatched: the stream ends before the blank line";

TEST(SseParser, SplitsEventsWhateverTheChunking) {
  for (size_t piece : {size_t(1), size_t(2), size_t(7), kStream.size()}) {
    auto events = parse_in_pieces(kStream, piece);
    ASSERT_EQ(events.size(), 3u) << "piece " << piece;
    EXPECT_EQ(events[0].type, "message");
    EXPECT_EQ(events[0].data, R"({"jsonrpc":"2.0","method":"notifications/progress"})");
    EXPECT_EQ(events[1].id, "7");
    EXPECT_EQ(events[1].data, "{\"a\":\n1}");  // data lines joined with "\n"
    EXPECT_EQ(events[2].data, "no-space");     // the space after ':' is optional
    EXPECT_EQ(events[2].type, "message");      // the default type
  }
}

TEST(SseParser, EventTypeIsKept) {
  auto events = parse_in_pieces("event: ping\ndata: x\n\n", 3);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, "ping");
  EXPECT_EQ(events[0].data, "x");
}

// A peer that sends one endless line, or one endless event of many data lines, is stopped at
// the limit instead of growing the buffer without end.
TEST(SseParser, AnEndlessLineOrEventIsRefusedAtTheLimit) {
  std::vector<SseEvent> events;
  SseParser line_parser([&](const SseEvent& e) { events.push_back(e); }, 100);
  EXPECT_NO_THROW(line_parser.feed("data: " + std::string(90, 'x') + "\n\n"));
  EXPECT_THROW(line_parser.feed("data: " + std::string(200, 'x')), std::length_error);
  SseParser event_parser([&](const SseEvent& e) { events.push_back(e); }, 100);
  std::string many_lines;
  for (int i = 0; i < 20; ++i) many_lines += "data: 0123456789\n";
  EXPECT_THROW(event_parser.feed(many_lines), std::length_error);
  EXPECT_EQ(events.size(), 1u);  // only the event within the limit
}

}  // namespace
}  // namespace zen::mcp
