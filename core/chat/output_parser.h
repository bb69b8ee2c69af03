// Splits a model's streamed output into answer text, reasoning and tool calls, as it arrives.
//
//   OutputParser parser({.format = ToolFormat::kHermes, .reasoning = true,
//                        .tool_names = {"get_weather"}});
//   for (each detokenized piece) send(parser.push(piece));
//   send(parser.finish());
//
// The deltas depend only on the whole text, never on how it was cut into pushes: a marker
// (<think>, </think>, <tool_call>, </tool_call>, <|python_tag|>, a ``` fence) split across
// pushes is held back until it is complete or cannot be, and so is a UTF-8 character whose last
// bytes have not arrived. A tool call is held back until its name is known, then announced and
// its arguments stream. Text that turns out not to be a call (malformed JSON before the call
// was announced, a name that is not one of tool_names, any other JSON object) is content,
// exactly as generated. Rules in detail: docs/TOOL-CALLS.md.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "chat/call_reader.h"
#include "chat/delta.h"
#include "chat/tool_format.h"

namespace zen::chat {

class OutputParser {
 public:
  struct Options {
    ToolFormat format = ToolFormat::kNone;
    // Split <think>...</think> (at the start of the output) off as reasoning.
    bool reasoning = false;
    // The prompt already opened <think> (prompt_opens_reasoning): output starts as reasoning.
    bool starts_in_reasoning = false;
    // Calls to other names are content. Empty: no tool calls at all.
    std::vector<std::string> tool_names;
    // Text the generation was started with (forced_prefix), parsed as if generated.
    std::string forced_prefix;
    // false: a call is reported only once its JSON is complete (start and arguments at once).
    bool stream_arguments = true;
    // false: after the first call, further calls are content.
    bool parallel_tool_calls = true;
    // Seed for call ids; unset: random.
    std::optional<uint64_t> id_seed;
  };

  explicit OutputParser(Options options);

  std::vector<Delta> push(std::string_view text);
  // The end of the output: everything held back. Calling push() afterwards is a logic error.
  std::vector<Delta> finish();

  // Calls announced so far (finish_reason "tool_calls" when non-zero).
  int tool_calls() const { return n_calls_; }

 private:
  enum class Phase {
    kStart,      // before anything: may open <think>
    kReasoning,  // inside <think>
    kLead,       // start of an answer segment: a call may begin here
    kContent,    // answer text
    kCallOpen,   // an opener matched: whitespace, then the JSON object
    kCall,       // inside the call's JSON object
    kCallClose,  // after the object: the closer (</tool_call>, ```), if any
  };

  void run(bool final);
  bool step(bool final);
  bool step_start(bool final);
  bool step_reasoning(bool final);
  bool step_lead(bool final);
  bool step_content(bool final);
  bool step_call_open(bool final);
  bool step_call(bool final);
  bool step_call_close(bool final);

  bool calls_allowed() const;
  // Length of an opener at the start of `s` (0: none; npos: cannot tell yet).
  size_t match_lead_opener(std::string_view s, bool final) const;
  void begin_call(size_t raw_length);
  void abandon_call();  // not a call: its text is content
  void end_call();

  void emit_text(Delta::Kind kind, std::string_view text);
  void announce();
  void emit_arguments();
  std::string new_call_id();

  Options options_;
  Phase phase_ = Phase::kStart;
  std::string buf_;        // text received and not yet decided
  std::string utf8_tail_;  // an unfinished character, held for the next push
  std::vector<Delta> out_;
  bool finished_ = false;
  bool drop_leading_space_ = false;  // after reasoning or a call: the answer's leading space
  bool reasoning_started_ = false;
  bool fenced_ = false;  // the current call opened a ``` fence (gemma)

  std::optional<CallReader> call_;
  std::string call_raw_;  // the current call's text so far, for when it is not a call
  bool announced_ = false;
  int n_calls_ = 0;
  std::mt19937_64 rng_;
};

}  // namespace zen::chat
