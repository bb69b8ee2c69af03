// JsonScanner against nlohmann::json as the reference validator, and its member classification
// checked on texts whose value characters are marked by hand.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "chat/json_scanner.h"

namespace zen::chat {
namespace {

// "complete": a whole object, nothing after it but whitespace; "prefix": no error yet.
struct Outcome {
  bool complete = false;
  bool prefix = true;
};

Outcome scan(const std::string& text) {
  JsonScanner s;
  Outcome o;
  size_t i = 0;
  for (; i < text.size() && !s.done(); ++i)
    if (s.feed(text[i]).error) {
      o.prefix = false;
      return o;
    }
  o.complete = s.done() && text.find_first_not_of(" \t\r\n", i) == std::string::npos;
  return o;
}

bool reference_object(const std::string& text) {
  return nlohmann::json::accept(text) && nlohmann::json::parse(text).is_object();
}

TEST(JsonScanner, AgreesWithNlohmannOnHandPickedTexts) {
  for (const char* t : {"{}",
                        " {\"a\": 1}",
                        "{\"a\": [1, 2.5, -0.5e-3, 1E+2, true, false, null, \"x\"]}",
                        "{\"a\": {\"b\": {\"c\": []}}, \"d\": \"\\u00e9\\n\\\"\"}",
                        "{\"a\": 01}",
                        "{\"a\": 1.}",
                        "{\"a\": -}",
                        "{\"a\": .5}",
                        "{\"a\": 1e}",
                        "{\"a\": tru}",
                        "{\"a\": \"\\x\"}",
                        "{\"a\": \"\\u12G4\"}",
                        "{a: 1}",
                        "{\"a\" 1}",
                        "{\"a\": 1,}",
                        "[1]",
                        "\"s\"",
                        "{\"a\": [1,]}",
                        "{\"a\": \"tab\there\"}",
                        "{\"a\": 1} ",
                        "{\"a\": 1}}",
                        "{\"a\":1e5}",
                        "{\"a\":[{}, {\"b\": [[]]}]}",
                        "{\"a\": -0}",
                        "{\"a\": 2E-0}"}) {
    const std::string text = t;
    const Outcome o = scan(text);
    EXPECT_EQ(o.complete, reference_object(text)) << text;
  }
}

// Random valid objects (random whitespace, numbers, escapes, nesting), half of them with one
// or two characters inserted, deleted or replaced: complete exactly when nlohmann accepts them
// as an object.
class RandomJson {
 public:
  explicit RandomJson(uint32_t seed) : rng_(seed) {}

  std::string object(int depth = 0) {
    std::string s = "{" + ws();
    const int n = pick(depth > 2 ? 2 : 4);
    for (int i = 0; i < n; ++i) {
      if (i) s += "," + ws();
      s += string() + ws() + ":" + ws() + value(depth + 1) + ws();
    }
    return s + "}";
  }

  std::string mutate(std::string s) {
    static const std::string kChars = "{}[]\":,.-+eE0123456789 tfnu\\x";
    for (int k = pick(2) + 1; k > 0 && !s.empty(); --k) {
      const size_t at = rng_() % s.size();
      const char c = kChars[rng_() % kChars.size()];
      switch (pick(3)) {
        case 0:
          s.insert(at, 1, c);
          break;
        case 1:
          s.erase(at, 1);
          break;
        default:
          s[at] = c;
          break;
      }
    }
    return s;
  }

  int pick(int n) { return static_cast<int>(rng_() % static_cast<uint32_t>(n)); }

 private:
  std::string ws() {
    static const char* kWs[] = {"", "", " ", "\n", "\t ", "\r\n"};
    return kWs[pick(6)];
  }
  std::string string() {
    static const char* kParts[] = {"a", "key", "\\n", "\\\"", "\\u00e9", "\\/", " ", "{", "]"};
    std::string s = "\"";
    for (int i = pick(4); i > 0; --i) s += kParts[pick(9)];
    return s + "\"";
  }
  std::string number() {
    static const char* kNumbers[] = {"0",   "-0",   "7",        "-12", "3.25",
                                     "1e5", "2E-3", "-0.5e+10", "10"};
    return kNumbers[pick(9)];
  }
  std::string value(int depth) {
    switch (pick(depth > 3 ? 4 : 6)) {
      case 0:
        return string();
      case 1:
        return number();
      case 2:
        return pick(2) ? "true" : pick(2) ? "false" : "null";
      case 3:
        return number();
      case 4:
        return object(depth);
      default: {
        std::string s = "[" + ws();
        const int n = pick(3);
        for (int i = 0; i < n; ++i) s += (i ? "," : "") + value(depth + 1) + ws();
        return s + "]";
      }
    }
  }

  std::mt19937 rng_;
};

TEST(JsonScanner, AgreesWithNlohmannOnRandomTexts) {
  RandomJson gen(11);
  int complete = 0, broken = 0;
  for (int n = 0; n < 20000; ++n) {
    std::string text = gen.object();
    if (gen.pick(2)) text = gen.mutate(text);
    const Outcome o = scan(text);
    EXPECT_EQ(o.complete, reference_object(text)) << text;
    complete += o.complete;
    broken += !o.prefix;
  }
  // The corpus exercises both sides.
  EXPECT_GT(complete, 10000);
  EXPECT_GT(broken, 3000);
}

// 'v' marks characters of a top-level member's value, '.' everything else.
std::string classify(const std::string& text) {
  JsonScanner s;
  std::string marks;
  for (char c : text) marks += s.feed(c).member_value ? 'v' : '.';
  return marks;
}

TEST(JsonScanner, MarksMemberValues) {
  EXPECT_EQ(classify("{\"a\": {\"b\": 1}, \"c\": 12, \"d\": \"x\", \"e\": true}"),
            "......vvvvvvvv.......vv.......vvv.......vvvv.");
  EXPECT_EQ(classify("{ \"k\" : [ 1 , 2 ] }"), "........vvvvvvvvv..");
}

TEST(JsonScanner, ReportsKeysAndEnds) {
  JsonScanner s;
  std::vector<std::string> keys;
  int values = 0;
  bool done = false;
  for (char c : std::string("{\"na\\\"me\": \"x\", \"args\": {\"in\": 1}, \"n\": 5}")) {
    const JsonScanner::Step st = s.feed(c);
    ASSERT_FALSE(st.error);
    if (st.key_done) keys.push_back(s.key());
    values += st.value_done;
    done = st.object_done;
  }
  EXPECT_EQ(keys,
            (std::vector<std::string>{"na\\\"me", "args", "n"}));  // nested "in" is not top-level
  EXPECT_EQ(values, 3);
  EXPECT_TRUE(done);
  EXPECT_TRUE(s.feed(' ').error);  // nothing is fed after the object
}

TEST(JsonScanner, DepthIsLimited) {
  JsonScanner s;
  size_t accepted = 0;
  for (size_t i = 0; i < 1000; ++i) {
    if (s.feed(i == 0   ? '{'
               : i == 1 ? '"'
               : i == 2 ? 'k'
               : i == 3 ? '"'
               : i == 4 ? ':'
                        : '[')
            .error)
      break;
    ++accepted;
  }
  EXPECT_EQ(accepted, 5 + JsonScanner::kMaxDepth - 1);
}

}  // namespace
}  // namespace zen::chat
