#include "chat/output_parser.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <utility>

#include "sampler/rng.h"
#include "text/utf8.h"

namespace zen::chat {
namespace {

constexpr std::string_view kThinkOpen = "<think>";
constexpr std::string_view kThinkClose = "</think>";
constexpr std::string_view kHermesOpen = "<tool_call>";
constexpr std::string_view kHermesClose = "</tool_call>";
constexpr std::string_view kPythonTag = "<|python_tag|>";
constexpr std::string_view kFence = "```";

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

size_t first_non_space(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  return i;
}

// True when `s` is a proper prefix of `marker` (it could still become the marker).
bool could_become(std::string_view s, std::string_view marker) {
  return s.size() < marker.size() && marker.starts_with(s);
}

// Bytes at the end of `s` to hold back: the longest tail that is a proper prefix of `marker`,
// and the whitespace before it (dropped if the marker follows).
size_t holdback(std::string_view s, std::string_view marker) {
  size_t hold = 0;
  for (size_t k = std::min(s.size(), marker.size() - 1); k > 0; --k)
    if (marker.starts_with(s.substr(s.size() - k))) {
      hold = k;
      break;
    }
  while (hold < s.size() && is_space(s[s.size() - hold - 1])) ++hold;
  return hold;
}

std::string_view rtrim(std::string_view s) {
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

OutputParser::OutputParser(Options options) : options_(std::move(options)) {
  rng_.seed(options_.id_seed ? *options_.id_seed : sampling::random_seed());
  if (!options_.reasoning)
    phase_ = Phase::kLead;
  else if (options_.starts_in_reasoning)
    phase_ = Phase::kReasoning;
  if (!options_.forced_prefix.empty()) {
    // Parsed as generated text; its deltas go out with the first push.
    buf_ = options_.forced_prefix;
    run(false);
  }
}

std::vector<Delta> OutputParser::push(std::string_view text) {
  if (finished_) throw std::logic_error("OutputParser::push after finish");
  utf8_tail_.append(text);
  const size_t tail = text::utf8::incomplete_tail(utf8_tail_);
  buf_.append(utf8_tail_, 0, utf8_tail_.size() - tail);
  utf8_tail_.erase(0, utf8_tail_.size() - tail);
  run(false);
  return std::exchange(out_, {});
}

std::vector<Delta> OutputParser::finish() {
  if (finished_) return {};
  finished_ = true;
  buf_ += utf8_tail_;
  utf8_tail_.clear();
  run(true);
  return std::exchange(out_, {});
}

void OutputParser::run(bool final) {
  while (step(final)) {
  }
}

bool OutputParser::step(bool final) {
  switch (phase_) {
    case Phase::kStart:
      return step_start(final);
    case Phase::kReasoning:
      return step_reasoning(final);
    case Phase::kLead:
      return step_lead(final);
    case Phase::kContent:
      return step_content(final);
    case Phase::kCallOpen:
      return step_call_open(final);
    case Phase::kCall:
      return step_call(final);
    case Phase::kCallClose:
      return step_call_close(final);
  }
  return false;
}

bool OutputParser::calls_allowed() const {
  return options_.format != ToolFormat::kNone && !options_.tool_names.empty() &&
         (options_.parallel_tool_calls || n_calls_ == 0);
}

// ---- reasoning ------------------------------------------------------------------------------

bool OutputParser::step_start(bool final) {
  const size_t i = first_non_space(buf_);
  const std::string_view rest = std::string_view(buf_).substr(i);
  if (rest.starts_with(kThinkOpen)) {
    buf_.erase(0, i + kThinkOpen.size());
    phase_ = Phase::kReasoning;
    return true;
  }
  if (!final && (rest.empty() || could_become(rest, kThinkOpen))) return false;
  phase_ = Phase::kLead;
  return true;
}

bool OutputParser::step_reasoning(bool final) {
  if (!reasoning_started_) buf_.erase(0, first_non_space(buf_));
  const size_t close = buf_.find(kThinkClose);
  if (close != std::string::npos) {
    emit_text(Delta::Kind::kReasoning, rtrim(std::string_view(buf_).substr(0, close)));
    buf_.erase(0, close + kThinkClose.size());
    phase_ = Phase::kLead;
    drop_leading_space_ = true;
    return true;
  }
  const size_t hold = final ? 0 : holdback(buf_, kThinkClose);
  const std::string_view now = std::string_view(buf_).substr(0, buf_.size() - hold);
  emit_text(Delta::Kind::kReasoning, final ? rtrim(now) : now);
  if (!now.empty()) reasoning_started_ = true;
  buf_.erase(0, buf_.size() - hold);
  return false;
}

// ---- answer text ----------------------------------------------------------------------------

size_t OutputParser::match_lead_opener(std::string_view s, bool final) const {
  constexpr size_t kWait = std::string::npos, kNo = 0;
  if (s.starts_with('{')) return 1;  // the object itself: an opener of no text (see begin_call)
  if (options_.format == ToolFormat::kLlama3) {
    if (s.starts_with(kPythonTag)) return 1 + kPythonTag.size();
    return !final && could_become(s, kPythonTag) ? kWait : kNo;
  }
  if (options_.format == ToolFormat::kGemma) {
    if (!s.starts_with(kFence)) return !final && could_become(s, kFence) ? kWait : kNo;
    // ``` then an optional language word (tool_code, json, ...), then a line break.
    size_t j = kFence.size();
    while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
    if (j == s.size()) return final ? kNo : kWait;
    return is_space(s[j]) ? 1 + j : kNo;
  }
  return kNo;
}

bool OutputParser::step_lead(bool final) {
  if (drop_leading_space_) {
    buf_.erase(0, first_non_space(buf_));
    if (buf_.empty()) return false;
    drop_leading_space_ = false;
  }
  const bool bare_json =
      options_.format == ToolFormat::kLlama3 || options_.format == ToolFormat::kGemma;
  if (!bare_json || !calls_allowed()) {
    phase_ = Phase::kContent;
    return true;
  }
  const size_t i = first_non_space(buf_);
  if (i == buf_.size() && !final) return false;
  const size_t m = match_lead_opener(std::string_view(buf_).substr(i), final);
  if (m == std::string::npos) return false;
  if (m == 0) {
    phase_ = Phase::kContent;
    return true;
  }
  // m counts one more than the opener's length, so that "{" (an opener of no text) is a match.
  fenced_ = options_.format == ToolFormat::kGemma && buf_.compare(i, kFence.size(), kFence) == 0;
  begin_call(i + m - 1);
  return true;
}

bool OutputParser::step_content(bool final) {
  if (options_.format == ToolFormat::kHermes && calls_allowed()) {
    const size_t open = buf_.find(kHermesOpen);
    if (open != std::string::npos) {
      size_t text_end = open;
      while (text_end > 0 && is_space(buf_[text_end - 1])) --text_end;
      emit_text(Delta::Kind::kContent, std::string_view(buf_).substr(0, text_end));
      buf_.erase(0, text_end);
      begin_call(open - text_end + kHermesOpen.size());
      return true;
    }
    const size_t hold = final ? 0 : holdback(buf_, kHermesOpen);
    emit_text(Delta::Kind::kContent, std::string_view(buf_).substr(0, buf_.size() - hold));
    buf_.erase(0, buf_.size() - hold);
    return false;
  }
  emit_text(Delta::Kind::kContent, buf_);
  buf_.clear();
  return false;
}

// ---- tool calls -----------------------------------------------------------------------------

void OutputParser::begin_call(size_t raw_length) {
  call_raw_ = buf_.substr(0, raw_length);
  buf_.erase(0, raw_length);
  call_.emplace(options_.tool_names, options_.stream_arguments);
  announced_ = false;
  phase_ = Phase::kCallOpen;
}

void OutputParser::abandon_call() {
  emit_text(Delta::Kind::kContent, call_raw_);
  call_raw_.clear();
  call_.reset();
  fenced_ = false;
  phase_ = Phase::kContent;
}

void OutputParser::end_call() {
  call_raw_.clear();
  call_.reset();
  announced_ = false;
  fenced_ = false;
  drop_leading_space_ = true;
  phase_ = Phase::kLead;
}

bool OutputParser::step_call_open(bool final) {
  const size_t i = first_non_space(buf_);
  call_raw_.append(buf_, 0, i);
  buf_.erase(0, i);
  if (buf_.empty()) {
    if (!final) return false;
    abandon_call();
    return true;
  }
  if (buf_.front() == '{') {
    phase_ = Phase::kCall;
  } else {
    abandon_call();
  }
  return true;
}

bool OutputParser::step_call(bool final) {
  size_t i = 0;
  for (; i < buf_.size(); ++i) {
    const CallReader::Feed f = call_->feed(buf_[i]);
    if (f == CallReader::Feed::kRejected) {
      // The JSON breaks at this character: it and what follows are answer text.
      buf_.erase(0, i);
      if (announced_) {
        emit_arguments();
        end_call();
        phase_ = Phase::kContent;
      } else {
        abandon_call();
      }
      return true;
    }
    call_raw_ += buf_[i];
    if (f == CallReader::Feed::kFailed) {
      buf_.erase(0, i + 1);
      abandon_call();
      return true;
    }
    if (call_->ready() && !announced_) announce();
    if (f == CallReader::Feed::kDone) {
      buf_.erase(0, i + 1);
      emit_arguments();
      phase_ = Phase::kCallClose;
      return true;
    }
  }
  buf_.clear();
  if (announced_) emit_arguments();
  if (!final) return false;
  // The output ended inside the object: an announced call stays (cut short, as the finish
  // reason will say); anything else was text.
  if (announced_) {
    end_call();
  } else {
    abandon_call();
  }
  return true;
}

bool OutputParser::step_call_close(bool final) {
  std::string_view closer;
  if (options_.format == ToolFormat::kHermes) closer = kHermesClose;
  if (fenced_) closer = kFence;
  if (closer.empty()) {
    end_call();
    return true;
  }
  const size_t i = first_non_space(buf_);
  const std::string_view rest = std::string_view(buf_).substr(i);
  if (rest.starts_with(closer)) {
    buf_.erase(0, i + closer.size());
  } else if (!final && (rest.empty() || could_become(rest, closer))) {
    return false;
  }
  // Without its closer the call still stands; what follows is text.
  end_call();
  return true;
}

// ---- output ---------------------------------------------------------------------------------

void OutputParser::emit_text(Delta::Kind kind, std::string_view text) {
  if (text.empty()) return;
  if (!out_.empty() && out_.back().kind == kind) {
    out_.back().text += text;
    return;
  }
  Delta d;
  d.kind = kind;
  d.text = std::string(text);
  out_.push_back(std::move(d));
}

void OutputParser::announce() {
  Delta d;
  d.kind = Delta::Kind::kToolCallStart;
  d.tool_index = n_calls_++;
  d.id = new_call_id();
  d.name = call_->name();
  out_.push_back(std::move(d));
  announced_ = true;
}

void OutputParser::emit_arguments() {
  std::string text = call_->take_arguments();
  if (text.empty()) return;
  const int index = n_calls_ - 1;
  if (!out_.empty() && out_.back().kind == Delta::Kind::kToolArguments &&
      out_.back().tool_index == index) {
    out_.back().text += text;
    return;
  }
  Delta d;
  d.kind = Delta::Kind::kToolArguments;
  d.tool_index = index;
  d.text = std::move(text);
  out_.push_back(std::move(d));
}

std::string OutputParser::new_call_id() { return sampling::random_id("call_", rng_); }

}  // namespace zen::chat
