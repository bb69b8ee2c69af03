// OutputParser: every case is parsed whole, split at every byte offset and byte by byte
// (expect_parse), and must add up to the message written by hand.
#include <gtest/gtest.h>

#include <random>

#include "parse_util.h"

namespace zen::chat::test {
namespace {

constexpr const char* kCall =
    "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";

// ---- hermes ---------------------------------------------------------------------------------

TEST(HermesParser, CallAfterText) {
  expect_parse(options(ToolFormat::kHermes), std::string("Let me check.\n") + kCall,
               with_call(content("Let me check."), "get_weather", "{\"city\": \"Paris\"}"));
}

TEST(HermesParser, CallOnlyLeavesNoContent) {
  expect_parse(options(ToolFormat::kHermes), std::string(kCall) + "\n",
               with_call(content(""), "get_weather", "{\"city\": \"Paris\"}"));
}

TEST(HermesParser, ParallelCallsAndTextAfter) {
  const std::string text =
      std::string(kCall) +
      "\n<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"a \\\"b\\\" {c}\", "
      "\"max_results\": [1, 2.5e3, -0, true, null]}}\n</tool_call>\nDone.";
  Message want = with_call(content("Done."), "get_weather", "{\"city\": \"Paris\"}");
  want = with_call(want, "search",
                   "{\"query\": \"a \\\"b\\\" {c}\", \"max_results\": [1, 2.5e3, -0, true, null]}");
  expect_parse(options(ToolFormat::kHermes), text, want);
}

TEST(HermesParser, PlainTextWithAngleBracketsIsContent) {
  expect_parse(options(ToolFormat::kHermes), "a < b and <tool> and <tool_cal",
               content("a < b and <tool> and <tool_cal"));
}

TEST(HermesParser, MalformedJsonIsContent) {
  const std::string text = "<tool_call>\n{\"name\": get_weather}\n</tool_call>";
  expect_parse(options(ToolFormat::kHermes), text, content(text));
  const std::string garbage = "x <tool_call>not json</tool_call> y";
  expect_parse(options(ToolFormat::kHermes), garbage, content(garbage));
}

TEST(HermesParser, UnknownToolIsContent) {
  const std::string text = "<tool_call>{\"name\": \"delete_all\", \"arguments\": {}}</tool_call>";
  expect_parse(options(ToolFormat::kHermes), text, content(text));
}

TEST(HermesParser, OtherJsonObjectIsContent) {
  const std::string text = "<tool_call>{\"foo\": 1}</tool_call>";
  expect_parse(options(ToolFormat::kHermes), text, content(text));
}

TEST(HermesParser, CallCutBeforeItsNameIsContent) {
  const std::string text = "Sure <tool_call>\n{\"na";
  expect_parse(options(ToolFormat::kHermes), text, content(text));
}

TEST(HermesParser, CallCutInItsArgumentsStays) {
  expect_parse(options(ToolFormat::kHermes),
               "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Par",
               with_call(content(""), "get_weather", "{\"city\": \"Par"));
}

TEST(HermesParser, JsonBreakingAfterTheCallWasAnnouncedEndsIt) {
  // The start and the valid part of the arguments were already streamed; the rest is text.
  expect_parse(
      options(ToolFormat::kHermes),
      "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": Paris}}</tool_call>",
      with_call(content("Paris}}</tool_call>"), "get_weather", "{\"city\": "));
}

TEST(HermesParser, ArgumentsBeforeNameAndStringArguments) {
  expect_parse(
      options(ToolFormat::kHermes),
      "<tool_call>{\"arguments\": {\"a\": [1, {\"b\": 2}]}, \"name\": \"search\"}</tool_call>",
      with_call(content(""), "search", "{\"a\": [1, {\"b\": 2}]}"));
  expect_parse(options(ToolFormat::kHermes),
               "<tool_call>{\"name\": \"search\", \"arguments\": \"{\\\"query\\\": "
               "\\\"x\\\"}\"}</tool_call>",
               with_call(content(""), "search", "{\"query\": \"x\"}"));
  expect_parse(options(ToolFormat::kHermes), "<tool_call>{\"name\": \"search\"}</tool_call>",
               with_call(content(""), "search", "{}"));
}

TEST(HermesParser, MissingCloserStillACall) {
  expect_parse(options(ToolFormat::kHermes),
               "<tool_call>{\"name\":\"get_weather\",\"arguments\":{}}\nok",
               with_call(content("ok"), "get_weather", "{}"));
}

TEST(HermesParser, NoToolsMeansNoCalls) {
  expect_parse(options(ToolFormat::kHermes, {}), kCall, content(kCall));
  expect_parse(options(ToolFormat::kNone), kCall, content(kCall));
}

TEST(HermesParser, ParallelCallsOffKeepsOnlyTheFirst) {
  OutputParser::Options o = options(ToolFormat::kHermes);
  o.parallel_tool_calls = false;
  expect_parse(o, std::string(kCall) + "\n" + kCall,
               with_call(content(kCall), "get_weather", "{\"city\": \"Paris\"}"));
}

TEST(HermesParser, ArgumentsStreamOnceTheNameIsKnown) {
  OutputParser p(options(ToolFormat::kHermes));
  EXPECT_TRUE(p.push("<tool_call>\n{\"name\": \"get_weather\"").empty());
  std::vector<Delta> d = p.push(", \"arguments\": {\"ci");
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].kind, Delta::Kind::kToolCallStart);
  EXPECT_EQ(d[0].name, "get_weather");
  EXPECT_EQ(d[0].tool_index, 0);
  EXPECT_EQ(d[1].kind, Delta::Kind::kToolArguments);
  EXPECT_EQ(d[1].text, "{\"ci");
  d = p.push("ty\": 1}}");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].text, "ty\": 1}");
  EXPECT_EQ(p.tool_calls(), 1);
}

TEST(HermesParser, NoStreamingReportsTheCallWhole) {
  OutputParser::Options o = options(ToolFormat::kHermes);
  o.stream_arguments = false;
  OutputParser p(o);
  EXPECT_TRUE(p.push("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"ci").empty());
  std::vector<Delta> d = p.push("ty\": 1}}");
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[1].text, "{\"city\": 1}");
  expect_parse(o, "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": Paris}}",
               content("<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": Paris}}"));
}

TEST(HermesParser, MarkerPrefixIsHeldBackNotEmitted) {
  OutputParser p(options(ToolFormat::kHermes));
  std::vector<Delta> d = p.push("Hello <tool_");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].text, "Hello");
  d = p.push("box>");
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].text, " <tool_box>");
}

TEST(HermesParser, ForcedPrefixesAreParsedAsGenerated) {
  OutputParser::Options named = options(ToolFormat::kHermes);
  named.forced_prefix = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": ";
  expect_parse(named, "{\"city\": \"Paris\"}}\n</tool_call>",
               with_call(content(""), "get_weather", "{\"city\": \"Paris\"}"));
  OutputParser::Options required = options(ToolFormat::kHermes);
  required.forced_prefix = "<tool_call>\n{\"name\": \"";
  expect_parse(required, "search\", \"arguments\": {}}\n</tool_call>",
               with_call(content(""), "search", "{}"));
}

// ---- reasoning ------------------------------------------------------------------------------

TEST(ReasoningParser, ThinkThenCall) {
  OutputParser::Options o = options(ToolFormat::kHermes);
  o.reasoning = true;
  Message want = with_call(content(""), "get_weather", "{\"city\": \"Paris\"}");
  want.reasoning = "The user wants the weather.\nCall the tool.";
  expect_parse(
      o, std::string("<think>\nThe user wants the weather.\nCall the tool.\n</think>\n\n") + kCall,
      want);
}

TEST(ReasoningParser, ThinkThenAnswer) {
  OutputParser::Options o = options(ToolFormat::kNone, {});
  o.reasoning = true;
  Message want = content("4, of course. <think> is just text here.");
  want.reasoning = "2 + 2 = 4 <tool_call> stays reasoning";
  expect_parse(o,
               "\n<think>\n2 + 2 = 4 <tool_call> stays reasoning\n</think>\n\n4, of course. "
               "<think> is just text here.",
               want);
}

TEST(ReasoningParser, OffLeavesThinkInContent) {
  OutputParser::Options o = options(ToolFormat::kHermes);
  expect_parse(
      o, std::string("<think>\nhmm\n</think>\n\n") + kCall,
      with_call(content("<think>\nhmm\n</think>"), "get_weather", "{\"city\": \"Paris\"}"));
}

TEST(ReasoningParser, PromptOpenedReasoning) {
  OutputParser::Options o = options(ToolFormat::kNone, {});
  o.reasoning = true;
  o.starts_in_reasoning = true;
  Message want = content("Answer.");
  want.reasoning = "Thinking...";
  expect_parse(o, "Thinking...\n</think>\n\nAnswer.", want);
  Message unclosed;
  unclosed.reasoning = "Still thinking";
  expect_parse(o, "\nStill thinking\n", unclosed);
}

TEST(ReasoningParser, NoThinkInOutputIsContent) {
  OutputParser::Options o = options(ToolFormat::kNone, {});
  o.reasoning = true;
  expect_parse(o, "  <thin air", content("  <thin air"));
  expect_parse(o, "Plain answer.", content("Plain answer."));
}

TEST(ReasoningParser, ForcedCallClosesOpenedReasoning) {
  OutputParser::Options o = options(ToolFormat::kHermes);
  o.reasoning = true;
  o.starts_in_reasoning = true;
  o.forced_prefix = "</think>\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": ";
  expect_parse(o, "{}}</tool_call>", with_call(content(""), "get_weather", "{}"));
}

// ---- llama3 ---------------------------------------------------------------------------------

TEST(Llama3Parser, BareJsonCall) {
  const Message want = with_call(content(""), "get_weather", "{\"city\": \"Paris\"}");
  expect_parse(options(ToolFormat::kLlama3),
               "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}", want);
  expect_parse(options(ToolFormat::kLlama3),
               "\n\n<|python_tag|>{\"type\": \"function\", \"name\": \"get_weather\", "
               "\"parameters\": {\"city\": \"Paris\"}}",
               want);
}

TEST(Llama3Parser, TwoCalls) {
  Message want = with_call(content(""), "get_weather", "{\"city\": \"Paris\"}");
  want = with_call(want, "search", "{\"query\": \"x\"}");
  expect_parse(options(ToolFormat::kLlama3),
               "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}\n"
               "{\"name\": \"search\", \"parameters\": {\"query\": \"x\"}}",
               want);
}

TEST(Llama3Parser, JsonNotAtTheStartOrNotACallIsContent) {
  for (const char* text :
       {"Sure: {\"name\": \"get_weather\", \"parameters\": {}}", "{\"answer\": 42}",
        "  {\"name\": \"unknown\", \"parameters\": {}}", "<|python_tag|>brave_search.call(q=1)",
        "{", "<|python_ta", "{\"name\": \"get_weather\", \"name\": \"x\", \"parameters\": {}}"})
    expect_parse(options(ToolFormat::kLlama3), text, content(text));
}

// ---- gemma ----------------------------------------------------------------------------------

TEST(GemmaParser, FencedAndBareCalls) {
  const Message want = with_call(content(""), "get_weather", "{\"city\": \"Paris\"}");
  for (const char* text :
       {"```tool_code\n{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}\n```",
        "```json\n{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}\n```\n",
        "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}"})
    expect_parse(options(ToolFormat::kGemma), text, want);
}

TEST(GemmaParser, OtherCodeIsContent) {
  for (const char* text : {"```python\nprint(1)\n```", "``", "```", "Use ```json``` fences."})
    expect_parse(options(ToolFormat::kGemma), text, content(text));
}

// ---- text handling --------------------------------------------------------------------------

TEST(TextParser, Utf8IsNeverSplit) {
  const std::string text = "Héllo wörld 🌍 你好 — «ok»";
  expect_parse(options(ToolFormat::kHermes), text, content(text));
  expect_parse(options(ToolFormat::kHermes),
               "🌍<tool_call>{\"name\": \"search\", \"arguments\": {\"query\": \"Zürich 你好 🌍\"}}"
               "</tool_call>é",
               with_call(content("🌍é"), "search", "{\"query\": \"Zürich 你好 🌍\"}"));
}

TEST(TextParser, InvalidBytesPassThrough) {
  const std::string text = "a\xff\xfe b \xe2\x82";  // ends inside a 3-byte character
  EXPECT_EQ(parse(options(ToolFormat::kHermes), text).content, text);
}

TEST(TextParser, HostileNestingDoesNotCrash) {
  // Arguments that are not an object cannot stream: the call is never announced, and the
  // nesting limit (JsonScanner::kMaxDepth) makes it text.
  const std::string arrays =
      "<tool_call>{\"name\": \"search\", \"arguments\": " + std::string(100000, '[') +
      "</tool_call>";
  EXPECT_EQ(parse(options(ToolFormat::kHermes), arrays), content(arrays));
  // An announced call whose arguments nest too deep ends at the limit; the rest is text.
  const std::string head = "<tool_call>{\"name\": \"search\", \"arguments\": ";
  const std::string args = "{\"a\": " + std::string(100000, '[');
  const Message m = parse(options(ToolFormat::kHermes), head + args);
  ASSERT_EQ(m.tool_calls.size(), 1u);
  EXPECT_EQ(m.tool_calls[0].arguments.size(),
            6 + JsonScanner::kMaxDepth - 2);  // "{\"a\": " and 254 levels
  EXPECT_EQ(m.tool_calls[0].arguments + m.content, args);
}

TEST(TextParser, PushAfterFinishIsALogicError) {
  OutputParser p(options(ToolFormat::kNone));
  p.finish();
  EXPECT_THROW(p.push("x"), std::logic_error);
  EXPECT_TRUE(p.finish().empty());
}

// Random texts made of marker fragments: however they are cut, the message is the same.
TEST(TextParser, RandomTextsAreSplitInvariant) {
  const std::vector<std::string> pieces = {"<tool_call>",
                                           "</tool_call>",
                                           "<think>",
                                           "</think>",
                                           "{",
                                           "}",
                                           "[",
                                           "]",
                                           "\"name\"",
                                           "\"arguments\"",
                                           "\"parameters\"",
                                           ":",
                                           ",",
                                           " ",
                                           "\n",
                                           "\"get_weather\"",
                                           "\"search\"",
                                           "\"x\"",
                                           "1",
                                           "-",
                                           "e",
                                           "```",
                                           "json",
                                           "<|python_tag|>",
                                           "<",
                                           "/",
                                           "é",
                                           "\\",
                                           "true",
                                           "a"};
  std::mt19937 rng(7);
  for (ToolFormat f : {ToolFormat::kHermes, ToolFormat::kLlama3, ToolFormat::kGemma}) {
    for (int reasoning = 0; reasoning < 2; ++reasoning) {
      OutputParser::Options o = options(f);
      o.reasoning = reasoning != 0;
      for (int n = 0; n < 300; ++n) {
        std::string text;
        const int len = 1 + static_cast<int>(rng() % 40);
        for (int k = 0; k < len; ++k) text += pieces[rng() % pieces.size()];
        const Message whole = parse(o, text);
        std::vector<std::string> chunks;
        for (size_t at = 0; at < text.size();) {
          const size_t step = 1 + rng() % 7;
          chunks.push_back(text.substr(at, step));
          at += step;
        }
        const Message split = parse_chunks(o, chunks);
        EXPECT_EQ(split.content, whole.content) << text;
        EXPECT_EQ(split.reasoning, whole.reasoning) << text;
        EXPECT_EQ(split.tool_calls, whole.tool_calls) << text;
      }
    }
  }
}

}  // namespace
}  // namespace zen::chat::test
