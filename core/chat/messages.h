// OpenAI chat messages to what a chat template is rendered with, the way transformers'
// apply_chat_template and llama.cpp's server prepare them:
// - content: a string; null becomes ""; an array of text parts is joined with "\n" (other
//   part types are refused: the engine reads text only);
// - "developer" messages are system messages;
// - assistant tool_calls keep id and type, and their `arguments` JSON string is parsed into an
//   object (templates iterate it or apply tojson to it);
// - tool messages keep tool_call_id and gain the called function's "name" when they lack it;
// - tools pass through (null or empty: none);
// - gemma (its template shows neither tools nor tool turns): the tools are described in the
//   system message (tool_instructions), calls become the JSON the model is asked to write, and
//   results become a user turn in a ```tool_output fence, merged with the next user turn so
//   roles still alternate.
// Everything else in a message is dropped. Errors are RequestError naming the field.
#pragma once

#include "chat/tools.h"
#include "template/template.h"

namespace zen::chat {

// The returned inputs have messages and tools set; the caller adds add_generation_prompt,
// bos/eos tokens and extra variables.
tmpl::ChatInputs chat_inputs(const Json& messages, const Json& tools, ToolFormat format);

}  // namespace zen::chat
