// Header-only C++ face of the typed generation task (zen/task.h): owning mirrors of the request
// and its events, a copy from the C structs (what the receiving side keeps) and a C view of a
// mirror (what the sending side hands over). Frontends build a GenerateRequest and submit its
// view; the engine copies it, answers with GenerateEvents and hands their views to the
// frontend's callback, which copies what it keeps. One mechanism on both sides of the ABI.
#pragma once

#include <zen/task.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace zen::task {

inline zen_str view(const std::string& s) { return zen_str{s.data(), s.size()}; }
inline std::string copy(zen_str s) { return s.ptr ? std::string(s.ptr, s.len) : std::string(); }
inline std::string copy(const char* s) { return s ? std::string(s) : std::string(); }

// ---- errors ------------------------------------------------------------------------------

struct TaskError {
  zen_status status = ZEN_ERR_INTERNAL;
  std::string message, member, code;
  double retry_after = 0;

  static TaskError copy_of(const zen_task_error& e) {
    TaskError t;
    t.status = e.status;
    t.message = copy(e.message);
    t.member = copy(e.member);
    if (ZEN_HAS_MEMBER(&e, zen_task_error, retry_after)) {
      t.code = copy(e.code);
      t.retry_after = e.retry_after;
    }
    return t;
  }
  // Valid while this TaskError lives.
  zen_task_error c_view() const {
    return zen_task_error{ZEN_HDR_INIT(zen_task_error),
                          status,
                          message.c_str(),
                          member.empty() ? nullptr : member.c_str(),
                          code.empty() ? nullptr : code.c_str(),
                          retry_after};
  }
};

// ---- the request -------------------------------------------------------------------------

struct ContentPart {
  zen_content_kind kind = ZEN_CONTENT_TEXT;
  std::string text;
  std::vector<uint8_t> data;
  std::string mime;
};

struct ToolCall {
  std::string id, name, arguments;
};

struct Message {
  zen_chat_role role = ZEN_ROLE_USER;
  std::vector<ContentPart> content;
  std::string name, reasoning;
  std::vector<ToolCall> tool_calls;
  std::string tool_call_id;

  static Message text(zen_chat_role role, std::string text) {
    Message m;
    m.role = role;
    m.content.push_back(ContentPart{ZEN_CONTENT_TEXT, std::move(text), {}, {}});
    return m;
  }
};

struct Tool {
  std::string name, description, parameters;
};

struct GenerateRequest {
  std::string model, tag;
  zen_generate_mode mode = ZEN_GENERATE_CHAT;
  std::vector<Message> messages;
  std::vector<Tool> tools;
  zen_tool_choice tool_choice = ZEN_TOOL_CHOICE_AUTO;
  std::string tool_choice_name;
  bool parallel_tool_calls = true;
  std::string template_vars;  // a JSON object's text, or empty
  std::string prompt;
  std::vector<int32_t> prompt_tokens;
  int32_t max_tokens = -1;
  uint32_t n = 1;
  std::vector<std::string> stops;
  bool ignore_eos = false;
  float temperature = 1, top_p = 1, min_p = 0, typical_p = 1;
  int32_t top_k = 0;
  float repeat_penalty = 1;
  int32_t repeat_last_n = 64;
  float frequency_penalty = 0, presence_penalty = 0;
  std::vector<zen_logit_bias> logit_bias;
  std::optional<uint64_t> seed;
  bool logprobs = false;
  uint32_t top_logprobs = 0;
  uint32_t sampling_given = ZEN_SAMPLING_ALL;  // zen_sampling_field bits the caller set
  struct LoraPick {
    int32_t id = -1;  // index in the served model's adapters, or -1: by name
    std::string name;
    float scale = 1.0f;
  };
  std::optional<std::vector<LoraPick>> lora;  // nullopt: the server's default scales

  // The caller checks r.h (ZEN_HAS_MEMBER(&r, zen_generate_request, top_logprobs)) first.
  static GenerateRequest copy_of(const zen_generate_request& r) {
    GenerateRequest g;
    g.model = copy(r.model);
    g.tag = copy(r.tag);
    g.mode = static_cast<zen_generate_mode>(r.mode);
    for (uint32_t i = 0; r.messages && i < r.n_messages; ++i) {
      const zen_chat_message& cm = r.messages[i];
      Message& m = g.messages.emplace_back();
      m.role = static_cast<zen_chat_role>(cm.role);
      for (uint32_t j = 0; cm.content && j < cm.n_content; ++j) {
        const zen_content_part& p = cm.content[j];
        ContentPart& part = m.content.emplace_back();
        part.kind = static_cast<zen_content_kind>(p.kind);
        part.text = copy(p.text);
        if (p.data) part.data.assign(p.data, p.data + p.data_len);
        part.mime = copy(p.mime);
      }
      m.name = copy(cm.name);
      m.reasoning = copy(cm.reasoning);
      for (uint32_t j = 0; cm.tool_calls && j < cm.n_tool_calls; ++j)
        m.tool_calls.push_back(ToolCall{copy(cm.tool_calls[j].id), copy(cm.tool_calls[j].name),
                                        copy(cm.tool_calls[j].arguments)});
      m.tool_call_id = copy(cm.tool_call_id);
    }
    for (uint32_t i = 0; r.tools && i < r.n_tools; ++i)
      g.tools.push_back(
          Tool{copy(r.tools[i].name), copy(r.tools[i].description), copy(r.tools[i].parameters)});
    g.tool_choice = static_cast<zen_tool_choice>(r.tool_choice);
    g.tool_choice_name = copy(r.tool_choice_name);
    g.parallel_tool_calls = r.parallel_tool_calls != 0;
    g.template_vars = copy(r.template_vars);
    g.prompt = copy(r.prompt);
    if (r.prompt_tokens)
      g.prompt_tokens.assign(r.prompt_tokens, r.prompt_tokens + r.n_prompt_tokens);
    g.max_tokens = r.max_tokens;
    g.n = r.n;
    for (uint32_t i = 0; r.stops && i < r.n_stops; ++i) g.stops.push_back(copy(r.stops[i]));
    g.ignore_eos = r.ignore_eos != 0;
    g.temperature = r.temperature;
    g.top_p = r.top_p;
    g.min_p = r.min_p;
    g.typical_p = r.typical_p;
    g.top_k = r.top_k;
    g.repeat_penalty = r.repeat_penalty;
    g.repeat_last_n = r.repeat_last_n;
    g.frequency_penalty = r.frequency_penalty;
    g.presence_penalty = r.presence_penalty;
    if (r.logit_bias) g.logit_bias.assign(r.logit_bias, r.logit_bias + r.n_logit_bias);
    if (r.has_seed) g.seed = r.seed;
    g.logprobs = r.logprobs != 0;
    g.top_logprobs = r.top_logprobs;
    g.sampling_given = ZEN_HAS_MEMBER(&r, zen_generate_request, sampling_given)
                           ? r.sampling_given
                           : static_cast<uint32_t>(ZEN_SAMPLING_ALL);
    if (ZEN_HAS_MEMBER(&r, zen_generate_request, n_lora) && r.has_lora) {
      g.lora.emplace();
      for (uint32_t i = 0; r.lora && i < r.n_lora; ++i)
        g.lora->push_back({r.lora[i].id, copy(r.lora[i].name), r.lora[i].scale});
    }
    return g;
  }
};

// The C struct of a GenerateRequest and the arrays it points into; valid while both live and
// the request is unchanged. Not copyable (the struct points into its own members).
class GenerateRequestView {
 public:
  explicit GenerateRequestView(const GenerateRequest& g) : c_(zen_generate_defaults()) {
    for (const Message& m : g.messages) {
      parts_.emplace_back();
      for (const ContentPart& p : m.content)
        parts_.back().push_back(zen_content_part{static_cast<uint32_t>(p.kind), view(p.text),
                                                 p.data.empty() ? nullptr : p.data.data(),
                                                 p.data.size(), view(p.mime)});
      calls_.emplace_back();
      for (const ToolCall& t : m.tool_calls)
        calls_.back().push_back(zen_tool_call{view(t.id), view(t.name), view(t.arguments)});
    }
    for (size_t i = 0; i < g.messages.size(); ++i) {
      const Message& m = g.messages[i];
      messages_.push_back(zen_chat_message{
          static_cast<uint32_t>(m.role), parts_[i].data(), static_cast<uint32_t>(parts_[i].size()),
          view(m.name), view(m.reasoning), calls_[i].data(),
          static_cast<uint32_t>(calls_[i].size()), view(m.tool_call_id)});
    }
    for (const Tool& t : g.tools)
      tools_.push_back(zen_tool{view(t.name), view(t.description), view(t.parameters)});
    for (const std::string& s : g.stops) stops_.push_back(view(s));
    c_.model = g.model.c_str();
    c_.tag = view(g.tag);
    c_.mode = static_cast<uint32_t>(g.mode);
    c_.messages = messages_.data();
    c_.n_messages = static_cast<uint32_t>(messages_.size());
    c_.tools = tools_.data();
    c_.n_tools = static_cast<uint32_t>(tools_.size());
    c_.tool_choice = static_cast<uint32_t>(g.tool_choice);
    c_.tool_choice_name = view(g.tool_choice_name);
    c_.parallel_tool_calls = g.parallel_tool_calls ? 1 : 0;
    c_.template_vars = view(g.template_vars);
    c_.prompt = view(g.prompt);
    c_.prompt_tokens = g.prompt_tokens.data();
    c_.n_prompt_tokens = static_cast<uint32_t>(g.prompt_tokens.size());
    c_.max_tokens = g.max_tokens;
    c_.n = g.n;
    c_.stops = stops_.data();
    c_.n_stops = static_cast<uint32_t>(stops_.size());
    c_.ignore_eos = g.ignore_eos ? 1 : 0;
    c_.temperature = g.temperature;
    c_.top_p = g.top_p;
    c_.min_p = g.min_p;
    c_.typical_p = g.typical_p;
    c_.top_k = g.top_k;
    c_.repeat_penalty = g.repeat_penalty;
    c_.repeat_last_n = g.repeat_last_n;
    c_.frequency_penalty = g.frequency_penalty;
    c_.presence_penalty = g.presence_penalty;
    c_.logit_bias = g.logit_bias.data();
    c_.n_logit_bias = static_cast<uint32_t>(g.logit_bias.size());
    c_.has_seed = g.seed ? 1 : 0;
    c_.seed = g.seed.value_or(0);
    c_.logprobs = g.logprobs ? 1 : 0;
    c_.top_logprobs = g.top_logprobs;
    c_.sampling_given = g.sampling_given;
    if (g.lora) {
      for (const GenerateRequest::LoraPick& p : *g.lora)
        lora_.push_back(zen_lora_pick{p.id, view(p.name), p.scale});
      c_.has_lora = 1;
      c_.lora = lora_.data();
      c_.n_lora = static_cast<uint32_t>(lora_.size());
    }
  }
  GenerateRequestView(const GenerateRequestView&) = delete;
  GenerateRequestView& operator=(const GenerateRequestView&) = delete;

  const zen_generate_request* get() const { return &c_; }

 private:
  std::vector<std::vector<zen_content_part>> parts_;
  std::vector<std::vector<zen_tool_call>> calls_;
  std::vector<zen_chat_message> messages_;
  std::vector<zen_tool> tools_;
  std::vector<zen_str> stops_;
  std::vector<zen_lora_pick> lora_;
  zen_generate_request c_;
};

// ---- events ------------------------------------------------------------------------------

// How a choice ended, as OpenAI names it ("stop", "length", "tool_calls"), and the two it does
// not have that an answer here still reports ("cancelled", "error").
inline const char* finish_name(zen_finish_reason r) {
  switch (r) {
    case ZEN_FINISH_STOP:
      return "stop";
    case ZEN_FINISH_LENGTH:
      return "length";
    case ZEN_FINISH_TOOL_CALLS:
      return "tool_calls";
    case ZEN_FINISH_CANCELLED:
      return "cancelled";
    default:
      return "error";
  }
}

struct TokenLogprob {
  int32_t token = -1;
  float logprob = 0;
  std::string piece;  // the token's bytes
};

struct LogprobEntry {
  TokenLogprob chosen;
  std::vector<TokenLogprob> top;
};

struct ToolCallDelta {
  uint32_t index = 0;
  std::string id, name, arguments;  // id and name on a call's first piece only
};

struct GenerateEvent {
  zen_generate_event_kind kind = ZEN_EVENT_DELTA;
  uint32_t choice = 0;
  std::string model;  // start
  int64_t created = 0;
  std::string content, reasoning;  // delta
  std::vector<ToolCallDelta> tool_calls;
  std::vector<LogprobEntry> logprobs;
  zen_finish_reason finish_reason = ZEN_FINISH_STOP;                     // finish
  uint64_t prompt_tokens = 0, completion_tokens = 0, cached_tokens = 0;  // done
  std::optional<TaskError> error;  // error; finish with ZEN_FINISH_ERROR

  // A delta with nothing in it is not worth sending.
  bool empty_delta() const {
    return content.empty() && reasoning.empty() && tool_calls.empty() && logprobs.empty();
  }

  static GenerateEvent copy_of(const zen_generate_event& e) {
    auto token = [](const zen_token_logprob& t) {
      return TokenLogprob{t.token, t.logprob, copy(t.piece)};
    };
    GenerateEvent g;
    g.kind = static_cast<zen_generate_event_kind>(e.kind);
    g.choice = e.choice;
    g.model = copy(e.model);
    g.created = e.created;
    g.content = copy(e.content);
    g.reasoning = copy(e.reasoning);
    for (uint32_t i = 0; e.tool_calls && i < e.n_tool_calls; ++i) {
      const zen_tool_call_delta& d = e.tool_calls[i];
      g.tool_calls.push_back(ToolCallDelta{d.index, copy(d.id), copy(d.name), copy(d.arguments)});
    }
    for (uint32_t i = 0; e.logprobs && i < e.n_logprobs; ++i) {
      LogprobEntry& entry = g.logprobs.emplace_back();
      entry.chosen = token(e.logprobs[i].chosen);
      for (uint32_t j = 0; e.logprobs[i].top && j < e.logprobs[i].n_top; ++j)
        entry.top.push_back(token(e.logprobs[i].top[j]));
    }
    g.finish_reason = static_cast<zen_finish_reason>(e.finish_reason);
    g.prompt_tokens = e.prompt_tokens;
    g.completion_tokens = e.completion_tokens;
    g.cached_tokens = e.cached_tokens;
    if (e.error) g.error = TaskError::copy_of(*e.error);
    return g;
  }
};

// The C struct of a GenerateEvent; valid while both live. Not copyable.
class GenerateEventView {
 public:
  explicit GenerateEventView(const GenerateEvent& g) {
    auto token = [](const TokenLogprob& t) {
      return zen_token_logprob{t.token, t.logprob, view(t.piece)};
    };
    for (const ToolCallDelta& d : g.tool_calls)
      calls_.push_back(zen_tool_call_delta{d.index, view(d.id), view(d.name), view(d.arguments)});
    for (const LogprobEntry& e : g.logprobs) {
      tops_.emplace_back();
      for (const TokenLogprob& t : e.top) tops_.back().push_back(token(t));
    }
    for (size_t i = 0; i < g.logprobs.size(); ++i)
      entries_.push_back(zen_logprob_entry{token(g.logprobs[i].chosen), tops_[i].data(),
                                           static_cast<uint32_t>(tops_[i].size())});
    c_.h = ZEN_HDR_INIT(zen_generate_event);
    c_.kind = static_cast<uint32_t>(g.kind);
    c_.choice = g.choice;
    c_.model = g.model.c_str();
    c_.created = g.created;
    c_.content = view(g.content);
    c_.reasoning = view(g.reasoning);
    c_.tool_calls = calls_.data();
    c_.n_tool_calls = static_cast<uint32_t>(calls_.size());
    c_.logprobs = entries_.data();
    c_.n_logprobs = static_cast<uint32_t>(entries_.size());
    c_.finish_reason = static_cast<uint32_t>(g.finish_reason);
    c_.prompt_tokens = g.prompt_tokens;
    c_.completion_tokens = g.completion_tokens;
    c_.cached_tokens = g.cached_tokens;
    if (g.error) {
      error_ = g.error->c_view();
      c_.error = &error_;
    }
  }
  GenerateEventView(const GenerateEventView&) = delete;
  GenerateEventView& operator=(const GenerateEventView&) = delete;

  const zen_generate_event* get() const { return &c_; }

 private:
  std::vector<zen_tool_call_delta> calls_;
  std::vector<std::vector<zen_token_logprob>> tops_;
  std::vector<zen_logprob_entry> entries_;
  zen_task_error error_{};
  zen_generate_event c_{};
};

}  // namespace zen::task
