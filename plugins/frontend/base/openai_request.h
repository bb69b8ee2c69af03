// An OpenAI chat or completion request body as the engine's typed generate request, checked
// field by field with OpenAI's semantics and limits (everything that needs no model: the
// engine checks the rest, naming the member). Unknown fields are refused ("Unrecognized request
// argument supplied: foo"), so a typo never silently does nothing. Errors are RequestRefused
// 400 naming the first bad field.
#pragma once

#include <zen/task.hpp>

#include "json_fields.h"

namespace zen::frontend {

enum class Api { kChat, kCompletion };

// OpenAI's limits that the engine keeps.
inline constexpr int kMaxChoices = 16;
inline constexpr int kMaxTopLogprobs = 20;
inline constexpr size_t kMaxStopStrings = 16;

struct OpenAiRequest {
  task::GenerateRequest request;  // its tag: a fresh "chatcmpl-..." or "cmpl-..." id
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage
};

OpenAiRequest parse_openai_request(Api api, const Json& body);

}  // namespace zen::frontend
