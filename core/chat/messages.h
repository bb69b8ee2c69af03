// Chat messages of a typed generate request (zen/task.h) to what a chat template is rendered
// with, the way transformers' apply_chat_template and llama.cpp's server prepare them:
// - content: the text parts joined with "\n" (a model that reads text only refuses other parts);
// - system messages are "system", whatever the frontend called them;
// - assistant tool calls keep id and type, and their arguments (JSON text) are parsed into an
//   object (templates iterate it or apply tojson to it);
// - tool messages keep tool_call_id and gain the called function's "name" when they lack it;
// - tools become {"type": "function", "function": {name, description?, parameters?}} (none:
//   no tools);
// - gemma (its template shows neither tools nor tool turns): the tools are described in the
//   system message (tool_instructions), calls become the JSON the model is asked to write, and
//   results become a user turn in a ```tool_output fence, merged with the next user turn so
//   roles still alternate.
// The protocol's own rules (what a message may hold, valid tool names) are the frontend's; the
// errors here are what only the engine can see, as RequestError naming the request member.
#pragma once

#include <vector>

#include <zen/task.hpp>

#include "chat/tools.h"
#include "template/template.h"

namespace zen::chat {

// The returned inputs have messages and tools set; the caller adds add_generation_prompt,
// bos/eos tokens and extra variables.
tmpl::ChatInputs chat_inputs(const std::vector<task::Message>& messages,
                             const std::vector<task::Tool>& tools, ToolFormat format);

// The tools as templates see them (an array; empty for none).
Json template_tools(const std::vector<task::Tool>& tools);

}  // namespace zen::chat
