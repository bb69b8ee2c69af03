// OpenAI chat messages as the typed messages of a generate request (zen::task::Message), with
// OpenAI's shape checks: every message an object with a string role ("developer" is a system
// message); system, user and tool messages need content (a string, or an array of
// {"type": "text", "text"} parts; other part types are refused: text only for now), an
// assistant's may be null; assistant tool_calls are checked call by call; a tool message needs
// its tool_call_id. What the chat template needs beyond the shape (arguments that parse as a
// JSON object, a tool message's function name from the earlier call) is the engine's to check
// and fill. Errors are RequestRefused 400 naming the field ("messages[2].tool_calls[0].id").
#pragma once

#include <zen/task.hpp>

#include <vector>

#include "json_fields.h"

namespace zen::frontend {

std::vector<task::Message> read_messages(const Json& messages);

}  // namespace zen::frontend
