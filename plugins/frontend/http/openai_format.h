// Engine events (api.md section 4: start, delta, finish, done, error) turned into OpenAI
// response objects: SSE chunks for streams, one assembled object otherwise. Chat and legacy
// completions differ only in how a choice's text and logprobs are laid out.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace zen::http {

enum class Api { kChat, kCompletion };

struct GenerationOptions {
  Api api = Api::kChat;
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage
  bool logprobs = false;       // chat: logprobs == true; completion: logprobs is a number
  // Reads the options from a request body the host will validate; a field of the wrong type
  // counts as absent here (the host rejects it with a 400 before any event).
  static GenerationOptions from_body(Api api, const nlohmann::json& body);
};

// The fingerprint OpenAI clients log: which server build answered.
extern const char* const kSystemFingerprint;

// Legacy completion logprobs: {tokens, token_logprobs, top_logprobs, text_offset}, built from
// engine logprob entries; text_offset continues across calls (characters, as Python counts).
class LegacyLogprobs {
 public:
  nlohmann::json take(const nlohmann::json& entries);  // a fresh object for these entries
  void append(const nlohmann::json& entries);          // accumulate for a final object
  const nlohmann::json& all() const { return all_; }

 private:
  nlohmann::json convert(const nlohmann::json& entries);
  uint64_t offset_ = 0;
  nlohmann::json all_ = {{"tokens", nlohmann::json::array()},
                         {"token_logprobs", nlohmann::json::array()},
                         {"top_logprobs", nlohmann::json::array()},
                         {"text_offset", nlohmann::json::array()}};
};

// Streaming: each call returns the SSE text to send ("data: {...}\n\n" lines), maybe empty.
class ChunkEncoder {
 public:
  explicit ChunkEncoder(GenerationOptions options) : options_(options) {}
  void on_start(const nlohmann::json& ev);
  std::string on_delta(const nlohmann::json& ev);
  std::string on_finish(const nlohmann::json& ev);
  std::string on_done(const nlohmann::json& ev);  // usage chunk when asked, then [DONE]
  static std::string error_event(const nlohmann::json& error);  // data: {"error": ...}
  static std::string done_marker() { return "data: [DONE]\n\n"; }

 private:
  nlohmann::json chunk(nlohmann::json choices) const;
  std::string role_chunk_once(int choice);
  static std::string sse(const nlohmann::json& j);

  GenerationOptions options_;
  nlohmann::json head_ = nlohmann::json::object();  // id, created, model
  std::map<int, bool> role_sent_;
  std::map<int, LegacyLogprobs> legacy_;
};

// Non-streaming: accumulate every choice, then build the response object.
class ResponseAssembler {
 public:
  explicit ResponseAssembler(GenerationOptions options) : options_(options) {}
  void on_start(const nlohmann::json& ev) { head_ = ev; }
  void on_delta(const nlohmann::json& ev);
  void on_finish(const nlohmann::json& ev);
  // The first choice that ended in an error ({"message", "type", ...}), or null.
  nlohmann::json failure() const;
  nlohmann::json result(const nlohmann::json& usage) const;

 private:
  struct ToolCall {
    std::string id, type = "function", name, arguments;
  };
  struct Choice {
    std::string content, reasoning;
    std::map<int, ToolCall> tool_calls;
    nlohmann::json logprobs = nlohmann::json::array();  // chat entries
    LegacyLogprobs legacy;
    std::string finish_reason;
    nlohmann::json error;
  };
  Choice& choice(const nlohmann::json& ev);
  nlohmann::json chat_choice(int index, const Choice& c) const;
  nlohmann::json completion_choice(int index, const Choice& c) const;

  GenerationOptions options_;
  nlohmann::json head_ = nlohmann::json::object();
  std::map<int, Choice> choices_;
};

}  // namespace zen::http
