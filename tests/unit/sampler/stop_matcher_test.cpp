// Stop strings over streamed text: the same result however the text is split into chunks,
// never half a UTF-8 character, nothing from the stop string on.
#include "sampler/stop_matcher.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "sampler/error.h"
#include "text/utf8.h"

namespace zen::sampling {
namespace {

struct Streamed {
  std::string text;
  std::optional<size_t> stop;
};

// Feeds `text` cut at the given ascending positions; checks every emitted piece is whole UTF-8.
Streamed stream(const std::vector<std::string>& stops, const std::string& text,
                const std::vector<size_t>& cuts) {
  StopMatcher matcher(stops);
  Streamed out;
  size_t begin = 0;
  std::vector<size_t> ends = cuts;
  ends.push_back(text.size());
  for (size_t end : ends) {
    const StopMatcher::Output o = matcher.push(std::string_view(text).substr(begin, end - begin));
    EXPECT_TRUE(text::utf8::is_valid(o.text)) << "emitted half a character: cut at " << end;
    out.text += o.text;
    if (o.stop) {
      out.stop = o.stop;
      return out;
    }
    begin = end;
  }
  out.text += matcher.finish();
  return out;
}

// Every split into two and three chunks, and byte by byte, gives `expected`.
void expect_split_invariant(const std::vector<std::string>& stops, const std::string& text,
                            const std::string& expected, std::optional<size_t> stop) {
  std::vector<std::vector<size_t>> splits = {{}};
  std::vector<size_t> bytewise;
  for (size_t i = 1; i < text.size(); ++i) {
    bytewise.push_back(i);
    splits.push_back({i});
    for (size_t j = i + 1; j < text.size(); ++j) splits.push_back({i, j});
  }
  splits.push_back(bytewise);
  for (const auto& cuts : splits) {
    const Streamed s = stream(stops, text, cuts);
    std::string where;
    for (size_t c : cuts) where += std::to_string(c) + " ";
    ASSERT_EQ(s.text, expected) << "cuts: " << where;
    ASSERT_EQ(s.stop, stop) << "cuts: " << where;
  }
}

TEST(StopMatcher, StopsBeforeTheStopStringAcrossEverySplit) {
  expect_split_invariant({"END"}, "Hello wörld 🙂 END and more", "Hello wörld 🙂 ", 0);
}

TEST(StopMatcher, MultiByteStopStrings) {
  expect_split_invariant({"🙂", "ö"}, "Hello wörld 🙂", "Hello w", 1);
  expect_split_invariant({"🙂x"}, "a🙂b🙂x", "a🙂b", 0);
}

TEST(StopMatcher, WithoutAStopEverythingComesOut) {
  expect_split_invariant({"</s>", "STOP"}, "ST0P </ s> 日本語 STO", "ST0P </ s> 日本語 STO",
                         std::nullopt);
  expect_split_invariant({}, "plain 🙂 text", "plain 🙂 text", std::nullopt);
}

TEST(StopMatcher, TheStopThatCompletesFirstWins) {
  // "b" completes at byte 2, "abc" at byte 3: generation stops at "b".
  expect_split_invariant({"abc", "b"}, "xabcd", "xa", 1);
  // Both complete at the same byte: the longer one, so less text is emitted.
  expect_split_invariant({"c", "abc"}, "xabcd", "x", 1);
}

TEST(StopMatcher, PartialMatchesThatFailAreReleased) {
  // "aab": the automaton must fall back after "aa" to still see "ab" (no rescanning).
  expect_split_invariant({"ab"}, "aaab", "aa", 0);
  expect_split_invariant({"abab"}, "abaababab!", "aba", 0);  // first at byte 3
  expect_split_invariant({"<|im_end|>"}, "a <|im a <|im_end|> b", "a <|im a ", 0);
}

TEST(StopMatcher, HoldsBackOnlyWhatCouldStillMatch) {
  StopMatcher m({"STOP"});
  EXPECT_EQ(m.push("the ST").text, "the ");
  EXPECT_EQ(m.push("O").text, "");
  EXPECT_EQ(m.push("RM").text, "STORM");
  EXPECT_EQ(m.push(" S").text, " ");
  EXPECT_EQ(m.finish(), "S");
}

TEST(StopMatcher, HoldsBackAnIncompleteCharacter) {
  StopMatcher m({});
  const std::string smile = "🙂";  // F0 9F 99 82
  EXPECT_EQ(m.push("a" + smile.substr(0, 2)).text, "a");
  EXPECT_EQ(m.push(smile.substr(2, 1)).text, "");
  EXPECT_EQ(m.push(smile.substr(3) + "b").text, smile + "b");
}

TEST(StopMatcher, FinishReplacesATruncatedCharacter) {
  StopMatcher m({});
  EXPECT_EQ(m.push("ok \xE6\x97").text, "ok ");
  EXPECT_EQ(m.finish(), "\xEF\xBF\xBD");
  EXPECT_THROW(m.push("x"), Error);
}

TEST(StopMatcher, InvalidBytesPassThroughWithoutBeingHeld) {
  // A lone continuation byte or an impossible lead byte can never complete: not held.
  StopMatcher m({});
  EXPECT_EQ(m.push("a\x80").text, "a\x80");
  EXPECT_EQ(m.push("b\xFF").text, "b\xFF");
  EXPECT_EQ(m.push("c\xE0\x80").text, "c\xE0\x80");  // E0 80 is an overlong start
}

TEST(StopMatcher, AfterAStopNothingMoreIsEmitted) {
  StopMatcher m({"\n\n"});
  const StopMatcher::Output first = m.push("line\n\nrest");
  EXPECT_EQ(first.text, "line");
  EXPECT_EQ(first.stop, 0u);
  const StopMatcher::Output again = m.push("more");
  EXPECT_EQ(again.text, "");
  EXPECT_EQ(again.stop, 0u);
  EXPECT_EQ(m.finish(), "");
}

TEST(StopMatcher, RejectsEmptyAndInvalidStopStrings) {
  EXPECT_THROW(StopMatcher({"ok", ""}), InvalidParams);
  EXPECT_THROW(StopMatcher({"\xC3"}), InvalidParams);
  EXPECT_THROW(StopMatcher({"\xED\xA0\x80"}), InvalidParams);  // a UTF-16 surrogate
}

TEST(StopMatcher, LongTextIsLinear) {
  // 1 MB streamed in 3-byte chunks against a stop with a long near-miss prefix.
  const std::string stop(200, 'a');
  StopMatcher m({stop + "b"});
  const std::string chunk = "aaa";
  size_t emitted = 0;
  for (int i = 0; i < 350000; ++i) emitted += m.push(chunk).text.size();
  EXPECT_EQ(emitted + m.finish().size(), 1050000u);
}

TEST(StopMatcherUtf8, Validation) {
  EXPECT_TRUE(text::utf8::is_valid(""));
  EXPECT_TRUE(text::utf8::is_valid("aé日🙂"));
  EXPECT_FALSE(text::utf8::is_valid("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(text::utf8::is_valid("\xF4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(text::utf8::is_valid("\xE6\x97"));          // truncated
  EXPECT_FALSE(text::utf8::is_valid("\x80"));
  EXPECT_EQ(text::utf8::incomplete_tail("a\xF0\x9F\x99"), 3u);
  EXPECT_EQ(text::utf8::incomplete_tail("a\xF0\x9F\x99\x82"), 0u);
  EXPECT_EQ(text::utf8::incomplete_tail("a\xC3"), 1u);
  EXPECT_EQ(text::utf8::incomplete_tail("a\xF0\x80"), 0u);  // overlong start: never a character
}

}  // namespace
}  // namespace zen::sampling
