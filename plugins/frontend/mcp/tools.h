// The tools this server offers, as tools/list shows them (name, description, inputSchema,
// outputSchema), and how a tools/call's checked arguments become an engine request. embed and
// rerank take the same arguments as /v1/embeddings and /v1/rerank (one parser for both).
#pragma once

#include <zen/task.hpp>

#include <optional>
#include <string_view>
#include <variant>

#include "embeddings.h"
#include "jsonrpc.h"
#include "rerank.h"
#include "tokenize_request.h"

namespace zen::mcp_server {

enum class Tool { kChat, kComplete, kListModels, kTokenize, kEmbed, kRerank };

// The "tools" array of a tools/list result: embed and rerank only when a served model answers
// them (`kinds`: zen_task_kind bits).
Json tool_definitions(uint32_t kinds);
std::optional<Tool> find_tool(std::string_view name);

// Checks `arguments` against the tool's inputSchema. Throws RpcError(kInvalidParams) naming
// the field.
void check_arguments(Tool tool, const Json& arguments);

// What a checked chat, complete or tokenize call asks the engine for (typed tasks, worked on by
// the host's threads, none of ours). chat and complete take OpenAI's argument names and are
// read by the frontends' one OpenAI parser: throws frontend::RequestRefused as it does.
using EngineTask =
    std::variant<task::GenerateRequest, frontend::TokenizeBody, http::EmbedBody, http::RerankBody>;
EngineTask engine_task(Tool tool, const Json& arguments);

// A tokenize call's tool result from the engine's: the ids as text, and {tokens, count} as its
// structuredContent.
Json tokenize_result(const zen_tokenize_result& result);
// {embeddings: [[...]], dimensions, usage} and {results, usage}, as structuredContent and text.
Json embed_result(const zen_embed_result& result);
Json rerank_result(const http::RerankBody& body, const zen_rerank_result& result);

}  // namespace zen::mcp_server
