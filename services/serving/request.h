// A generation request as the engine works on it: the typed request of zen/task.h (its
// protocol checked by the frontend that sent it) with what the engine derives from it: sampler
// parameters, the tool names and choice, the template's extra variables.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <zen/task.hpp>

#include "chat/tools.h"
#include "sampler/params.h"

namespace zen::serving {

// Ordered: the template renders tools and arguments in the client's key order.
using Json = nlohmann::ordered_json;

// The engine's own limits on one request (a frontend may keep tighter ones).
inline constexpr uint32_t kMaxChoices = 16;
inline constexpr size_t kMaxStopStrings = 16;

struct GenerationRequest {
  bool chat = true;   // messages through the chat template; else the prompt as it is
  std::string model;  // "" = the only model served
  std::string tag;    // the frontend's name for it, for log lines

  sampling::Params sampling;
  uint32_t sampling_given = ZEN_SAMPLING_ALL;  // fields set; the others take the model's defaults
  int32_t max_tokens = -1;                     // -1: until the context ends
  int32_t n = 1;
  std::vector<std::string> stop;
  bool ignore_eos = false;
  std::optional<std::vector<task::GenerateRequest::LoraPick>> lora;  // nullopt: the defaults

  // chat
  std::vector<task::Message> messages;
  std::vector<task::Tool> tools;
  std::vector<std::string> tool_names;
  zen_tool_choice tool_choice = ZEN_TOOL_CHOICE_AUTO;  // as asked: "auto" without tools is none
  std::string tool_choice_name;
  bool parallel_tool_calls = true;
  Json template_kwargs = Json::object();  // enable_thinking, ...

  // completion: text, or token ids
  std::string prompt_text;
  std::vector<int32_t> prompt_tokens;

  // The member the prompt came in, for errors about it.
  const char* prompt_member() const { return chat ? "messages" : "prompt"; }
};

// Throws ApiError (invalid) for what breaks the engine's own limits.
GenerationRequest generation_request(task::GenerateRequest typed);

}  // namespace zen::serving
