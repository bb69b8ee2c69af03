// The engine's typed generation events (zen::task::GenerateEvent: start, delta, finish, done)
// as OpenAI response objects: SSE chunks for streams, one assembled object otherwise. Chat and
// legacy completions differ only in how a choice's text and logprobs are laid out.
#pragma once

#include <zen/task.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "openai_request.h"

namespace zen::http {

using frontend::Api;

struct GenerationOptions {
  Api api = Api::kChat;
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage
  bool logprobs = false;       // chat: logprobs == true; completion: logprobs is a number
  std::string id;              // the response's "id" (the request's tag)
  static GenerationOptions of(Api api, const frontend::OpenAiRequest& r);
};

// The fingerprint OpenAI clients log: which server build answered.
extern const char* const kSystemFingerprint;

// A chat choice's logprobs.content entries: {"token", "logprob", "bytes", "top_logprobs"}.
nlohmann::json chat_logprobs(const std::vector<task::LogprobEntry>& entries);

// The response's usage object, from a done event.
nlohmann::json usage_of(const task::GenerateEvent& done);

// Legacy completion logprobs: {tokens, token_logprobs, top_logprobs, text_offset}; text_offset
// continues across calls (characters, as Python counts).
class LegacyLogprobs {
 public:
  nlohmann::json take(const std::vector<task::LogprobEntry>& entries);  // for these entries
  void append(const std::vector<task::LogprobEntry>& entries);          // accumulate a final object
  const nlohmann::json& all() const { return all_; }

 private:
  nlohmann::json convert(const std::vector<task::LogprobEntry>& entries);
  uint64_t offset_ = 0;
  nlohmann::json all_ = {{"tokens", nlohmann::json::array()},
                         {"token_logprobs", nlohmann::json::array()},
                         {"top_logprobs", nlohmann::json::array()},
                         {"text_offset", nlohmann::json::array()}};
};

// Streaming: each call returns the SSE text to send ("data: {...}\n\n" lines), maybe empty.
class ChunkEncoder {
 public:
  explicit ChunkEncoder(GenerationOptions options) : options_(std::move(options)) {}
  void on_start(const task::GenerateEvent& ev);
  std::string on_delta(const task::GenerateEvent& ev);
  std::string on_finish(const task::GenerateEvent& ev);
  std::string on_done(const task::GenerateEvent& ev);  // usage chunk when asked, then [DONE]
  static std::string error_event(const nlohmann::json& error);  // data: {"error": ...}
  static std::string done_marker() { return "data: [DONE]\n\n"; }

 private:
  nlohmann::json chunk(nlohmann::json choices) const;
  std::string role_chunk_once(uint32_t choice);
  static std::string sse(const nlohmann::json& j);

  GenerationOptions options_;
  int64_t created_ = 0;
  std::string model_;
  std::map<uint32_t, bool> role_sent_;
  std::map<uint32_t, LegacyLogprobs> legacy_;
};

// Non-streaming: accumulate every choice, then build the response object.
class ResponseAssembler {
 public:
  explicit ResponseAssembler(GenerationOptions options) : options_(std::move(options)) {}
  void on_start(const task::GenerateEvent& ev);
  void on_delta(const task::GenerateEvent& ev);
  void on_finish(const task::GenerateEvent& ev);
  // The first choice that ended in an error ({"message", "type", ...}), or null.
  nlohmann::json failure() const;
  nlohmann::json result(const nlohmann::json& usage) const;

 private:
  struct ToolCall {
    std::string id, name, arguments;
  };
  struct Choice {
    std::string content, reasoning;
    std::map<uint32_t, ToolCall> tool_calls;
    nlohmann::json logprobs = nlohmann::json::array();  // chat entries
    LegacyLogprobs legacy;
    std::string finish_reason;
    nlohmann::json error;
  };
  nlohmann::json chat_choice(uint32_t index, const Choice& c) const;
  nlohmann::json completion_choice(uint32_t index, const Choice& c) const;

  GenerationOptions options_;
  int64_t created_ = 0;
  std::string model_;
  std::map<uint32_t, Choice> choices_;
};

}  // namespace zen::http
