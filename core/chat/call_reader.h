// Reads one tool call's JSON object, {"name": "...", "arguments": {...}} (or "parameters"),
// a character at a time, and decides as early as the text allows whether it is a call:
// - it is not once a key other than name/arguments/parameters/type/id appears, the name is
//   not a string or not one of the allowed tools, or the JSON breaks before the call is ready;
// - it is ready (its name known and its arguments may be reported) as soon as the name is
//   known and the arguments object has opened, so they stream as generated; arguments given as
//   a JSON string, or when streaming is off, make it ready only when the object closes.
#pragma once

#include <string>
#include <vector>

#include "chat/json_scanner.h"

namespace zen::chat {

class CallReader {
 public:
  enum class Feed {
    kOk,        // consumed, the call goes on
    kDone,      // consumed: it closed the object (ready() is true)
    kFailed,    // consumed, but this is not a call (only before ready())
    kRejected,  // not consumed: the JSON breaks here (before or after ready())
  };

  CallReader(const std::vector<std::string>& allowed_names, bool stream_arguments);

  Feed feed(char c);

  bool ready() const { return ready_; }
  const std::string& name() const { return name_; }
  // Arguments text produced since the last call (all of it so far, the first time).
  std::string take_arguments();

 private:
  enum class Member { kNone, kName, kArguments, kIgnored };

  Feed on_key();
  Feed on_value_done();
  Feed on_object_done();
  void on_value_char(char c);

  const std::vector<std::string>& allowed_;
  const bool stream_;
  JsonScanner scanner_;
  Member member_ = Member::kNone;
  std::string name_raw_, args_raw_;  // the members' JSON as written
  std::string name_;
  bool has_name_ = false, has_args_ = false;
  bool ready_ = false;
  std::string pending_;  // arguments not yet taken
};

}  // namespace zen::chat
