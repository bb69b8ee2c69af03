// A request's prompt as tokens, and how its output is to be read. Chat: the messages (and
// tools) rendered through the model's chat template with the generation prompt, plus the
// forced tool-call prefix for tool_choice "required" or a named function. Completion: the
// prompt text tokenized (or the token ids checked).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "chat_output.h"
#include "request.h"
#include "served_model.h"

namespace zen::serving {

struct Prompt {
  std::vector<int32_t> tokens;
  std::optional<OutputSpec> output;  // unset for completions: all text is content
};

// Throws ApiError 400 (template refusal, tool_choice the model's format cannot force, empty or
// out-of-vocabulary prompt) or 500 (an unparsable model template).
Prompt build_prompt(const ServedModel& model, const GenerationRequest& request);

}  // namespace zen::serving
