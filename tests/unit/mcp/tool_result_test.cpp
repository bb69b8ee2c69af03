#include <gtest/gtest.h>

#include "mcp/tool_result.h"

namespace zen::mcp {
namespace {

using nlohmann::json;

TEST(ToolResult, TextItemsAreJoinedWithNewlines) {
  FlatResult r = flatten_tool_result(json::parse(R"({"content": [
      {"type": "text", "text": "first"}, {"type": "text", "text": "second"}],
      "structuredContent": {"ignored": true}, "isError": false})"));
  EXPECT_EQ(r.text, "first\nsecond");
  EXPECT_FALSE(r.is_error);
}

TEST(ToolResult, BinaryItemsAreDescribedWithTheirDecodedSize) {
  // "AQID" is base64 for the 3 bytes 01 02 03; "AQI=" for 01 02; "AA==" for 00.
  FlatResult r = flatten_tool_result(json::parse(R"({"content": [
      {"type": "image", "mimeType": "image/png", "data": "AQID"},
      {"type": "audio", "mimeType": "audio/wav", "data": "AQI="},
      {"type": "resource", "resource": {"uri": "file:///x", "mimeType": "application/zip",
                                        "blob": "AA=="}},
      {"type": "resource", "resource": {"uri": "file:///t", "text": "inline text"}},
      {"type": "resource_link", "uri": "file:///doc", "name": "doc"}]})"));
  EXPECT_EQ(r.text,
            "[image/png, 3 bytes]\n[audio/wav, 2 bytes]\n[application/zip, 1 bytes]\n"
            "inline text\n[resource file:///doc (doc)]");
}

TEST(ToolResult, StructuredContentStandsInForMissingContent) {
  FlatResult r =
      flatten_tool_result(json::parse(R"({"content": [], "structuredContent": {"result": 5}})"));
  EXPECT_EQ(r.text, R"({"result":5})");
}

TEST(ToolResult, IsErrorIsCarriedOver) {
  FlatResult r = flatten_tool_result(
      json::parse(R"({"content": [{"type": "text", "text": "no such city"}], "isError": true})"));
  EXPECT_EQ(r.text, "no such city");
  EXPECT_TRUE(r.is_error);
}

TEST(ToolResult, AResultThatIsNotAnObjectIsAnError) {
  FlatResult r = flatten_tool_result(json::array());
  EXPECT_TRUE(r.is_error);
  EXPECT_EQ(r.text, "malformed tools/call result: []");
}

}  // namespace
}  // namespace zen::mcp
