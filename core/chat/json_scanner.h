// An incremental JSON validator for one top-level object, fed a character at a time, that
// tells the tool-call parser where each top-level member's key and value are while the text
// is still arriving. This is what lets a call's arguments stream as the model writes them:
// every character is classified the moment it arrives, and a syntax error is reported at the
// exact character that makes the text stop being a prefix of valid JSON.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace zen::chat {

class JsonScanner {
 public:
  // What one character was, seen from the top-level object.
  struct Step {
    bool error = false;         // not a prefix of a JSON object any more (the char is rejected)
    bool member_value = false;  // part of the value of the current top-level member
    bool key_done = false;      // closed a top-level key: key() holds its raw (escaped) text
    bool value_done = false;    // completed the current top-level member's value
    bool object_done = false;   // closed the top-level object
  };

  // Nesting deeper than this is an error (hostile input must not grow the stack unbounded).
  static constexpr size_t kMaxDepth = 256;

  Step feed(char c);

  bool done() const { return state_ == State::kDone; }
  // Raw text of the last top-level key, between its quotes, escapes not decoded.
  const std::string& key() const { return key_; }

 private:
  enum class State {
    kStart,            // before the top-level '{'
    kValue,            // a value is expected (whitespace allowed)
    kString,           // inside a string
    kEscape,           // after a backslash in a string
    kUnicode,          // inside \uXXXX (hex_left_ digits to go)
    kNumMinus,         // '-' read
    kNumZero,          // a leading 0 read
    kNumInt,           // integer digits
    kNumDot,           // '.' read, a digit must follow
    kNumFrac,          // fraction digits
    kNumExp,           // 'e' read
    kNumExpSign,       // exponent sign read, a digit must follow
    kNumExpDigits,     // exponent digits
    kLiteral,          // inside true / false / null
    kKeyOrEnd,         // after '{': a key or '}'
    kKey,              // after ',' in an object: a key
    kColon,            // after a key: ':'
    kAfterValue,       // after a value inside a container: ',' or the closer
    kArrayValueOrEnd,  // after '[': a value or ']'
    kDone,             // the top-level object is closed
    kError,
  };

  bool in_scalar() const;
  bool in_number() const;
  // The container-level handling of a character; false when it is a syntax error.
  bool structural(char c);
  bool start_value(char c);
  void end_value();

  State state_ = State::kStart;
  Step step_;                // the step being computed by feed()
  std::vector<char> stack_;  // '{' or '[' per open container
  bool string_is_key_ = false;
  int hex_left_ = 0;
  const char* literal_rest_ = nullptr;  // the characters of true/false/null still expected
  std::string key_;
};

}  // namespace zen::chat
