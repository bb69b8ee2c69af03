// The tools this server offers, as tools/list shows them (name, description, inputSchema,
// outputSchema), and how a tools/call's checked arguments become an engine request.
//
// No `embed` tool yet: encoder models answer the typed embed task (zen/task.h, served as
// /v1/embeddings by the http frontend); an MCP tool for it belongs with the engine's other
// typed tasks (listed for the models whose task_kinds include ZEN_TASK_EMBED).
#pragma once

#include <zen/task.hpp>

#include <optional>
#include <string_view>
#include <variant>

#include "jsonrpc.h"
#include "tokenize_request.h"

namespace zen::mcp_server {

enum class Tool { kChat, kComplete, kListModels, kTokenize };

Json tool_definitions();  // the "tools" array of a tools/list result
std::optional<Tool> find_tool(std::string_view name);

// Checks `arguments` against the tool's inputSchema. Throws RpcError(kInvalidParams) naming
// the field.
void check_arguments(Tool tool, const Json& arguments);

// What a checked chat, complete or tokenize call asks the engine for (typed tasks, worked on by
// the host's threads, none of ours). chat and complete take OpenAI's argument names and are
// read by the frontends' one OpenAI parser: throws frontend::RequestRefused as it does.
using EngineTask = std::variant<task::GenerateRequest, frontend::TokenizeBody>;
EngineTask engine_task(Tool tool, const Json& arguments);

// A tokenize call's tool result from the engine's: the ids as text, and {tokens, count} as its
// structuredContent.
Json tokenize_result(const zen_tokenize_result& result);

}  // namespace zen::mcp_server
