#include "chat/json_scanner.h"

namespace zen::chat {
namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

}  // namespace

bool JsonScanner::in_number() const {
  switch (state_) {
    case State::kNumMinus:
    case State::kNumZero:
    case State::kNumInt:
    case State::kNumDot:
    case State::kNumFrac:
    case State::kNumExp:
    case State::kNumExpSign:
    case State::kNumExpDigits:
      return true;
    default:
      return false;
  }
}

bool JsonScanner::in_scalar() const {
  switch (state_) {
    case State::kString:
    case State::kEscape:
    case State::kUnicode:
      return !string_is_key_;
    case State::kLiteral:
      return true;
    default:
      return in_number();
  }
}

void JsonScanner::end_value() {
  if (stack_.empty()) {
    state_ = State::kDone;
    step_.object_done = true;
    return;
  }
  state_ = State::kAfterValue;
  if (stack_.size() == 1) step_.value_done = true;
}

bool JsonScanner::start_value(char c) {
  switch (c) {
    case '{':
    case '[':
      if (stack_.size() >= kMaxDepth) return false;
      stack_.push_back(c);
      state_ = c == '{' ? State::kKeyOrEnd : State::kArrayValueOrEnd;
      return true;
    case '"':
      state_ = State::kString;
      string_is_key_ = false;
      return true;
    case '-':
      state_ = State::kNumMinus;
      return true;
    case '0':
      state_ = State::kNumZero;
      return true;
    case 't':
      literal_rest_ = "rue";
      state_ = State::kLiteral;
      return true;
    case 'f':
      literal_rest_ = "alse";
      state_ = State::kLiteral;
      return true;
    case 'n':
      literal_rest_ = "ull";
      state_ = State::kLiteral;
      return true;
    default:
      if (c >= '1' && c <= '9') {
        state_ = State::kNumInt;
        return true;
      }
      return false;
  }
}

bool JsonScanner::structural(char c) {
  if (is_ws(c) && state_ != State::kDone) return true;
  switch (state_) {
    case State::kStart:
      if (c != '{') return false;
      stack_.push_back('{');
      state_ = State::kKeyOrEnd;
      return true;
    case State::kValue:
      return start_value(c);
    case State::kArrayValueOrEnd:
      if (c == ']') {
        stack_.pop_back();
        end_value();
        return true;
      }
      return start_value(c);
    case State::kKeyOrEnd:
    case State::kKey:
      if (c == '}' && state_ == State::kKeyOrEnd) {
        stack_.pop_back();
        end_value();
        return true;
      }
      if (c != '"') return false;
      state_ = State::kString;
      string_is_key_ = true;
      if (stack_.size() == 1) key_.clear();
      return true;
    case State::kColon:
      if (c != ':') return false;
      state_ = State::kValue;
      return true;
    case State::kAfterValue:
      if (c == ',') {
        state_ = stack_.back() == '{' ? State::kKey : State::kValue;
        return true;
      }
      if ((c == '}' && stack_.back() == '{') || (c == ']' && stack_.back() == '[')) {
        stack_.pop_back();
        end_value();
        return true;
      }
      return false;
    default:
      return false;
  }
}

JsonScanner::Step JsonScanner::feed(char c) {
  step_ = Step{};
  if (state_ == State::kError || state_ == State::kDone) {
    step_.error = true;
    return step_;
  }
  // A number has no closing character: the first character that cannot continue it ends it,
  // and is then read at the container level.
  if (in_number()) {
    const bool can_end = state_ == State::kNumZero || state_ == State::kNumInt ||
                         state_ == State::kNumFrac || state_ == State::kNumExpDigits;
    const bool continues =
        is_digit(c)
            ? state_ != State::kNumZero
            : ((c == '.' && (state_ == State::kNumZero || state_ == State::kNumInt)) ||
               ((c == 'e' || c == 'E') && (state_ == State::kNumZero || state_ == State::kNumInt ||
                                           state_ == State::kNumFrac)) ||
               ((c == '+' || c == '-') && state_ == State::kNumExp));
    if (!continues) {
      if (!can_end) {
        state_ = State::kError;
        step_.error = true;
        return step_;
      }
      end_value();
    }
  }
  const bool value_before = stack_.size() >= 2 || (stack_.size() == 1 && in_scalar());
  const State before = state_;
  bool ok = true;
  switch (state_) {
    case State::kString:
      if (c == '"') {
        if (string_is_key_) {
          state_ = State::kColon;
          if (stack_.size() == 1) step_.key_done = true;
        } else {
          end_value();
        }
      } else if (c == '\\') {
        state_ = State::kEscape;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        ok = false;  // control characters must be escaped
      }
      break;
    case State::kEscape:
      if (c == 'u') {
        state_ = State::kUnicode;
        hex_left_ = 4;
      } else if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' ||
                 c == 'r' || c == 't') {
        state_ = State::kString;
      } else {
        ok = false;
      }
      break;
    case State::kUnicode:
      if (!is_hex(c)) {
        ok = false;
      } else if (--hex_left_ == 0) {
        state_ = State::kString;
      }
      break;
    case State::kNumMinus:
      if (c == '0') {
        state_ = State::kNumZero;
      } else if (is_digit(c)) {
        state_ = State::kNumInt;
      }
      break;
    case State::kNumZero:
    case State::kNumInt:
    case State::kNumFrac:
      if (c == '.') {
        state_ = State::kNumDot;
      } else if (c == 'e' || c == 'E') {
        state_ = State::kNumExp;
      }
      break;
    case State::kNumDot:
      if (is_digit(c)) {
        state_ = State::kNumFrac;
      } else {
        ok = false;
      }
      break;
    case State::kNumExp:
      state_ = is_digit(c) ? State::kNumExpDigits : State::kNumExpSign;
      break;
    case State::kNumExpSign:
      if (is_digit(c)) {
        state_ = State::kNumExpDigits;
      } else {
        ok = false;
      }
      break;
    case State::kNumExpDigits:
      break;
    case State::kLiteral:
      if (c != *literal_rest_) {
        ok = false;
      } else if (*++literal_rest_ == '\0') {
        end_value();
      }
      break;
    default:
      ok = structural(c);
      break;
  }
  if (!ok) {
    state_ = State::kError;
    step_ = Step{};
    step_.error = true;
    return step_;
  }
  // A top-level key's characters between its quotes (escapes kept as written).
  if (string_is_key_ && stack_.size() == 1 && !step_.key_done &&
      (before == State::kString || before == State::kEscape || before == State::kUnicode))
    key_ += c;
  const bool value_after = stack_.size() >= 2 || (stack_.size() == 1 && in_scalar());
  step_.member_value = value_before || value_after;
  return step_;
}

}  // namespace zen::chat
