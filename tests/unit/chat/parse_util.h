// Helpers for the output parser tests: run a text through a parser whole, split in two at
// every byte offset, and one byte at a time, and check every run adds up to the same message.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "chat/output_parser.h"
#include "text/utf8.h"

namespace zen::chat::test {

// The message streamed deltas add up to, by the rule clients apply to OpenAI chunks.
struct ToolCall {
  std::string id, name, arguments;  // arguments: a JSON text, as the model wrote it
  bool operator==(const ToolCall&) const = default;
};

struct Message {
  std::string content, reasoning;
  std::vector<ToolCall> tool_calls;
  bool operator==(const Message&) const = default;
};

inline void add_to(Message& message, const Delta& delta) {
  switch (delta.kind) {
    case Delta::Kind::kContent:
      message.content += delta.text;
      return;
    case Delta::Kind::kReasoning:
      message.reasoning += delta.text;
      return;
    case Delta::Kind::kToolCallStart:
      ASSERT_EQ(delta.tool_index, static_cast<int>(message.tool_calls.size()))
          << "tool call started out of order";
      message.tool_calls.push_back({delta.id, delta.name, ""});
      return;
    case Delta::Kind::kToolArguments:
      ASSERT_TRUE(delta.tool_index >= 0 &&
                  delta.tool_index < static_cast<int>(message.tool_calls.size()))
          << "arguments for tool call " << delta.tool_index << " that never started";
      message.tool_calls[delta.tool_index].arguments += delta.text;
      return;
  }
}

inline void add_to(Message& message, const std::vector<Delta>& deltas) {
  for (const Delta& d : deltas) add_to(message, d);
}

inline OutputParser::Options options(ToolFormat format,
                                     std::vector<std::string> tools = {"get_weather", "search"}) {
  OutputParser::Options o;
  o.format = format;
  o.tool_names = std::move(tools);
  o.id_seed = 42;  // equal ids in every run of the same text
  return o;
}

inline Message parse_chunks(const OutputParser::Options& o, const std::vector<std::string>& chunks,
                            std::vector<Delta>* all = nullptr) {
  OutputParser p(o);
  Message m;
  for (const std::string& c : chunks) {
    std::vector<Delta> d = p.push(c);
    add_to(m, d);
    if (all) all->insert(all->end(), d.begin(), d.end());
  }
  std::vector<Delta> d = p.finish();
  add_to(m, d);
  if (all) all->insert(all->end(), d.begin(), d.end());
  return m;
}

inline Message parse(const OutputParser::Options& o, std::string_view text) {
  return parse_chunks(o, {std::string(text)});
}

// Parses `text` whole, split at every offset and byte by byte; every run must give `expected`,
// and (for valid UTF-8 input) every text delta must be valid UTF-8.
inline void expect_parse(const OutputParser::Options& o, std::string_view text,
                         const Message& expected) {
  const bool utf8_input = text::utf8::is_valid(text);
  auto check = [&](const std::vector<std::string>& chunks, const std::string& how) {
    std::vector<Delta> deltas;
    Message m = parse_chunks(o, chunks, &deltas);
    EXPECT_EQ(m.content, expected.content) << how;
    EXPECT_EQ(m.reasoning, expected.reasoning) << how;
    ASSERT_EQ(m.tool_calls.size(), expected.tool_calls.size()) << how;
    for (size_t i = 0; i < m.tool_calls.size(); ++i) {
      EXPECT_EQ(m.tool_calls[i].name, expected.tool_calls[i].name) << how;
      EXPECT_EQ(m.tool_calls[i].arguments, expected.tool_calls[i].arguments) << how;
      EXPECT_TRUE(m.tool_calls[i].id.starts_with("call_") && m.tool_calls[i].id.size() == 29)
          << m.tool_calls[i].id;
    }
    if (utf8_input) {
      for (const Delta& d : deltas)
        EXPECT_TRUE(text::utf8::is_valid(d.text)) << how << ": " << d.text;
    }
  };
  check({std::string(text)}, "whole");
  for (size_t at = 0; at <= text.size(); ++at)
    check({std::string(text.substr(0, at)), std::string(text.substr(at))},
          "split at " + std::to_string(at));
  std::vector<std::string> bytes;
  for (char c : text) bytes.emplace_back(1, c);
  check(bytes, "byte by byte");
}

inline Message content(std::string text) {
  Message m;
  m.content = std::move(text);
  return m;
}

inline Message with_call(Message m, std::string name, std::string arguments) {
  m.tool_calls.push_back({"", std::move(name), std::move(arguments)});
  return m;
}

}  // namespace zen::chat::test
