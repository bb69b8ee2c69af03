// A generation request as the engine API receives it (the OpenAI body plus "endpoint" and
// "stream"), checked field by field with OpenAI's semantics. Everything that can be checked
// without the model is checked here; a wrong field is an ApiError 400 naming it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "chat/tools.h"
#include "sampler/params.h"

namespace zen::serving {

// Ordered: the template renders tools and arguments in the client's key order.
using Json = nlohmann::ordered_json;

enum class Endpoint { kChat, kCompletion };

// OpenAI's limits that the engine keeps.
inline constexpr int kMaxChoices = 16;
inline constexpr int kMaxTopLogprobs = 20;
inline constexpr size_t kMaxStopStrings = 16;

struct GenerationRequest {
  Endpoint endpoint = Endpoint::kChat;
  std::string model;  // "" = the only model served

  sampling::Params sampling;  // OpenAI defaults: temperature 1, top_p 1, nothing else
  int32_t max_tokens = -1;    // -1: until the context ends
  int32_t n = 1;
  std::vector<std::string> stop;
  bool ignore_eos = false;

  // chat: messages as sent (core/chat checks and converts them for the template)
  Json messages = Json::array();
  Json tools;  // null, or an array of {"type": "function", "function": {...}}, checked
  std::vector<std::string> tool_names;
  chat::ToolChoice tool_choice;
  bool parallel_tool_calls = true;
  Json template_kwargs = Json::object();  // chat_template_kwargs (enable_thinking, ...)

  // completion: text, or token ids
  std::optional<std::string> prompt_text;
  std::vector<int32_t> prompt_tokens;
};

// Throws ApiError 400 naming the first bad field. Fields it does not know are refused too
// ("Unrecognized request argument supplied: foo"), so a typo never silently does nothing.
GenerationRequest parse_generation_request(const Json& body);

}  // namespace zen::serving
