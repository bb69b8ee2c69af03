#include "chat/call_reader.h"

#include <algorithm>
#include <utility>

#include <nlohmann/json.hpp>

namespace zen::chat {
namespace {

// Longer than any valid tool name (64 characters, see tools.h) plus quotes and escapes.
constexpr size_t kMaxNameJson = 256;

}  // namespace

CallReader::CallReader(const std::vector<std::string>& allowed_names, bool stream_arguments)
    : allowed_(allowed_names), stream_(stream_arguments) {}

std::string CallReader::take_arguments() { return std::exchange(pending_, {}); }

CallReader::Feed CallReader::on_key() {
  const std::string& key = scanner_.key();
  member_ = Member::kIgnored;
  if (ready_) return Feed::kOk;  // the call is settled: later members change nothing
  if (key == "name") {
    if (has_name_) return Feed::kFailed;  // two names: not a call we can trust
    has_name_ = true;
    member_ = Member::kName;
  } else if (key == "arguments" || key == "parameters") {
    if (has_args_) return Feed::kFailed;
    has_args_ = true;
    member_ = Member::kArguments;
  } else if (key != "type" && key != "id") {
    return Feed::kFailed;  // some other JSON object, not a call
  }
  return Feed::kOk;
}

void CallReader::on_value_char(char c) {
  if (member_ == Member::kName) {
    name_raw_ += c;
  } else if (member_ == Member::kArguments) {
    args_raw_ += c;
    if (ready_) {
      pending_ += c;
    } else if (stream_ && !name_.empty() && args_raw_ == "{") {
      ready_ = true;  // name known, arguments object open: stream from here
      pending_ = args_raw_;
    }
  }
}

CallReader::Feed CallReader::on_value_done() {
  if (member_ == Member::kName) {
    nlohmann::json name;
    try {
      name = nlohmann::json::parse(name_raw_);
    } catch (const nlohmann::json::exception&) {
      return Feed::kFailed;
    }
    if (!name.is_string()) return Feed::kFailed;
    const std::string& n = name.get_ref<const std::string&>();
    if (std::find(allowed_.begin(), allowed_.end(), n) == allowed_.end()) return Feed::kFailed;
    name_ = n;
    // Arguments written before the name: report them now if they are an object.
    if (stream_ && !args_raw_.empty() && args_raw_.front() == '{') {
      ready_ = true;
      pending_ = args_raw_;
    }
  }
  member_ = Member::kNone;
  return Feed::kOk;
}

CallReader::Feed CallReader::on_object_done() {
  if (ready_) return Feed::kDone;
  if (name_.empty()) return Feed::kFailed;
  if (args_raw_.empty()) {
    pending_ = "{}";
  } else if (args_raw_.front() == '{') {
    pending_ = args_raw_;
  } else if (args_raw_.front() == '"') {
    // Arguments double-encoded as a string: the string's content must be a JSON object.
    try {
      std::string inner = nlohmann::json::parse(args_raw_).get<std::string>();
      if (!nlohmann::json::parse(inner).is_object()) return Feed::kFailed;
      pending_ = std::move(inner);
    } catch (const nlohmann::json::exception&) {
      return Feed::kFailed;
    }
  } else {
    return Feed::kFailed;
  }
  ready_ = true;
  return Feed::kDone;
}

CallReader::Feed CallReader::feed(char c) {
  const JsonScanner::Step step = scanner_.feed(c);
  if (step.error) return Feed::kRejected;
  if (step.key_done) return on_key();
  if (step.member_value) {
    on_value_char(c);
    if (name_raw_.size() > kMaxNameJson) return ready_ ? Feed::kOk : Feed::kFailed;
  }
  if (step.value_done) {
    Feed f = on_value_done();
    if (f != Feed::kOk) return f;
  }
  if (step.object_done) return on_object_done();
  return Feed::kOk;
}

}  // namespace zen::chat
