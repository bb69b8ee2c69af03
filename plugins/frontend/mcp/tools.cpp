#include "tools.h"

#include "openai_request.h"
#include "schema_check.h"

namespace zen::mcp_server {
namespace {

// Sampling and length options shared by chat and complete (OpenAI's names and ranges: the
// frontends' OpenAI parser reads the arguments).
Json generation_properties() {
  return Json{
      {"model",
       {{"type", "string"},
        {"description", "model id (see list_models); optional with one model"}}},
      {"max_tokens",
       {{"type", "integer"}, {"minimum", 1}, {"description", "most tokens to generate"}}},
      {"temperature",
       {{"type", "number"},
        {"minimum", 0},
        {"maximum", 2},
        {"description", "0 = greedy (deterministic)"}}},
      {"top_p", {{"type", "number"}, {"minimum", 0}, {"maximum", 1}}},
      {"top_k", {{"type", "integer"}, {"minimum", -1}}},
      {"seed", {{"type", "integer"}, {"description", "fixes the sampling for repeatable output"}}},
      {"stop",
       {{"type", Json::array({"string", "array"})},
        {"items", {{"type", "string"}, {"minLength", 1}}},
        {"description", "text (or texts) that end the generation; not included in the result"}}},
  };
}

Json generation_output_schema() {
  return Json{{"type", "object"},
              {"properties",
               {{"content", {{"type", "string"}}},
                {"finish_reason", {{"type", "string"}}},
                {"usage",
                 {{"type", "object"},
                  {"properties",
                   {{"prompt_tokens", {{"type", "integer"}}},
                    {"completion_tokens", {{"type", "integer"}}},
                    {"total_tokens", {{"type", "integer"}}}}}}}}},
              {"required", {"content", "finish_reason", "usage"}}};
}

Json read_only() { return Json{{"readOnlyHint", true}, {"openWorldHint", false}}; }

Json chat_tool() {
  Json props = generation_properties();
  props["messages"] = {
      {"type", "array"},
      {"minItems", 1},
      {"description", "the conversation, OpenAI chat shape: [{\"role\", \"content\"}, ...]"},
      {"items",
       {{"type", "object"},
        {"properties",
         {{"role",
           {{"type", "string"}, {"enum", {"system", "developer", "user", "assistant", "tool"}}}},
          {"content", {{"type", Json::array({"string", "array", "null"})}}}}},
        {"required", {"role"}}}}};
  return Json{{"name", "chat"},
              {"title", "Chat with a local model"},
              {"description",
               "Generate the next assistant message of a conversation with a model served by "
               "this Zen Engine (its chat template applies)."},
              {"inputSchema",
               {{"type", "object"},
                {"properties", std::move(props)},
                {"required", {"messages"}},
                {"additionalProperties", false}}},
              {"outputSchema", generation_output_schema()},
              {"annotations", read_only()}};
}

Json complete_tool() {
  Json props = generation_properties();
  props["prompt"] = {{"type", "string"}, {"description", "raw text to continue (no template)"}};
  return Json{{"name", "complete"},
              {"title", "Continue a text"},
              {"description", "Continue a raw text prompt with a model served by this Zen Engine."},
              {"inputSchema",
               {{"type", "object"},
                {"properties", std::move(props)},
                {"required", {"prompt"}},
                {"additionalProperties", false}}},
              {"outputSchema", generation_output_schema()},
              {"annotations", read_only()}};
}

Json list_models_tool() {
  return Json{
      {"name", "list_models"},
      {"title", "List the served models"},
      {"description", "The models this Zen Engine serves and has loaded, with their metadata."},
      {"inputSchema",
       {{"type", "object"}, {"properties", Json::object()}, {"additionalProperties", false}}},
      {"outputSchema",
       {{"type", "object"},
        {"properties",
         {{"models",
           {{"type", "array"},
            {"items",
             {{"type", "object"},
              {"properties", {{"id", {{"type", "string"}}}}},
              {"required", {"id"}}}}}}}},
        {"required", {"models"}}}},
      {"annotations", read_only()}};
}

Json tokenize_tool() {
  return Json{
      {"name", "tokenize"},
      {"title", "Tokenize a text"},
      {"description", "The token ids a model's tokenizer gives a text (special tokens added)."},
      {"inputSchema",
       {{"type", "object"},
        {"properties",
         {{"text", {{"type", "string"}}},
          {"model", {{"type", "string"}, {"description", "optional with one model"}}}}},
        {"required", {"text"}},
        {"additionalProperties", false}}},
      {"outputSchema",
       {{"type", "object"},
        {"properties",
         {{"tokens", {{"type", "array"}, {"items", {{"type", "integer"}}}}},
          {"count", {{"type", "integer"}}}}},
        {"required", {"tokens", "count"}}}},
      {"annotations", read_only()}};
}

Json model_property() {
  return Json{{"type", "string"}, {"description", "model id (see list_models); optional with one"}};
}

Json embed_tool() {
  return Json{
      {"name", "embed"},
      {"title", "Embed texts"},
      {"description",
       "Embedding vectors of texts from an embedding model served by this Zen Engine (unit "
       "length unless the model says otherwise), for similarity search."},
      {"inputSchema",
       {{"type", "object"},
        {"properties",
         {{"input",
           {{"type", Json::array({"string", "array"})},
            {"items", {{"type", "string"}}},
            {"description", "a text or texts"}}},
          {"model", model_property()},
          {"dimensions",
           {{"type", "integer"}, {"minimum", 1}, {"description", "a Matryoshka width"}}},
          {"input_type",
           {{"type", "string"}, {"description", "the model's prompt: \"query\", \"document\""}}},
          {"truncate", {{"type", "boolean"}, {"description", "cut texts that are too long"}}}}},
        {"required", {"input"}},
        {"additionalProperties", false}}},
      {"outputSchema",
       {{"type", "object"},
        {"properties",
         {{"embeddings",
           {{"type", "array"}, {"items", {{"type", "array"}, {"items", {{"type", "number"}}}}}}},
          {"dimensions", {{"type", "integer"}}},
          {"usage", {{"type", "object"}}}}},
        {"required", {"embeddings", "dimensions", "usage"}}}},
      {"annotations", read_only()}};
}

Json rerank_tool() {
  return Json{
      {"name", "rerank"},
      {"title", "Rerank documents"},
      {"description",
       "Score documents by relevance to a query with a reranker served by this Zen Engine; the "
       "most relevant first."},
      {"inputSchema",
       {{"type", "object"},
        {"properties",
         {{"query", {{"type", "string"}}},
          {"documents", {{"type", "array"}, {"minItems", 1}, {"items", {{"type", "string"}}}}},
          {"top_n", {{"type", "integer"}, {"minimum", 1}}},
          {"model", model_property()},
          {"truncate", {{"type", "boolean"}, {"description", "cut documents that are too long"}}}}},
        {"required", {"query", "documents"}},
        {"additionalProperties", false}}},
      {"outputSchema",
       {{"type", "object"},
        {"properties",
         {{"results",
           {{"type", "array"},
            {"items",
             {{"type", "object"},
              {"properties",
               {{"index", {{"type", "integer"}}}, {"relevance_score", {{"type", "number"}}}}},
              {"required", {"index", "relevance_score"}}}}}},
          {"usage", {{"type", "object"}}}}},
        {"required", {"results", "usage"}}}},
      {"annotations", read_only()}};
}

const Json& definitions() {
  // In Tool's order.
  static const Json tools = Json::array({chat_tool(), complete_tool(), list_models_tool(),
                                         tokenize_tool(), embed_tool(), rerank_tool()});
  return tools;
}

// The tool result of structured content: the same JSON as its text too, for clients that read
// only text (the MCP spec's advice).
Json structured(Json content) {
  return Json{{"content", Json::array({{{"type", "text"}, {"text", dump(content)}}})},
              {"structuredContent", std::move(content)},
              {"isError", false}};
}

// A 400 the shared parser answers, as the tool error it is here.
[[noreturn]] void refuse(const http::Reply& reply) {
  const Json body = Json::parse(reply.body, nullptr, false);
  std::string message = "invalid arguments", param;
  if (body.is_object() && body.contains("error") && body["error"].is_object()) {
    message = body["error"].value("message", message);
    if (body["error"].contains("param") && body["error"]["param"].is_string())
      param = body["error"]["param"].get<std::string>();
  }
  throw frontend::RequestRefused(param, message);
}

}  // namespace

Json tool_definitions(uint32_t kinds) {
  Json tools = Json::array();
  for (size_t i = 0; i < definitions().size(); ++i) {
    const Tool t = static_cast<Tool>(i);
    if ((t == Tool::kEmbed && !(kinds & ZEN_TASK_EMBED)) ||
        (t == Tool::kRerank && !(kinds & ZEN_TASK_RERANK)))
      continue;
    tools.push_back(definitions()[i]);
  }
  return tools;
}

std::optional<Tool> find_tool(std::string_view name) {
  if (name == "chat") return Tool::kChat;
  if (name == "complete") return Tool::kComplete;
  if (name == "list_models") return Tool::kListModels;
  if (name == "tokenize") return Tool::kTokenize;
  if (name == "embed") return Tool::kEmbed;
  if (name == "rerank") return Tool::kRerank;
  return std::nullopt;
}

void check_arguments(Tool tool, const Json& arguments) {
  check_against_schema(definitions()[static_cast<size_t>(tool)]["inputSchema"], arguments,
                       "arguments");
}

EngineTask engine_task(Tool tool, const Json& arguments) {
  if (tool == Tool::kTokenize) {
    frontend::TokenizeBody body;
    body.text = arguments["text"].get<std::string>();
    body.model = arguments.value("model", std::string());
    return body;
  }
  if (tool == Tool::kEmbed) {
    auto parsed = http::parse_embed_body(arguments);
    if (auto* reply = std::get_if<http::Reply>(&parsed)) refuse(*reply);
    return std::get<http::EmbedBody>(std::move(parsed));
  }
  if (tool == Tool::kRerank) {
    auto parsed = http::parse_rerank_body(arguments);
    if (auto* reply = std::get_if<http::Reply>(&parsed)) refuse(*reply);
    return std::get<http::RerankBody>(std::move(parsed));
  }
  const frontend::Api api = tool == Tool::kChat ? frontend::Api::kChat : frontend::Api::kCompletion;
  return frontend::parse_openai_request(api, frontend::Json(arguments)).request;
}

Json tokenize_result(const zen_tokenize_result& r) {
  Json tokens = Json::array();
  for (uint32_t i = 0; r.tokens && i < r.n_tokens; ++i) tokens.push_back(r.tokens[i]);
  const size_t count = tokens.size();
  return Json{{"content", Json::array({{{"type", "text"}, {"text", dump(tokens)}}})},
              {"structuredContent", {{"tokens", std::move(tokens)}, {"count", count}}},
              {"isError", false}};
}

Json embed_result(const zen_embed_result& r) {
  Json vectors = Json::array();
  for (uint32_t i = 0; i < r.n_vectors; ++i) {
    const float* v = r.vectors + static_cast<size_t>(i) * r.n_embd;
    vectors.push_back(std::vector<float>(v, v + r.n_embd));
  }
  return structured({{"embeddings", std::move(vectors)},
                     {"dimensions", r.n_embd},
                     {"usage", {{"prompt_tokens", r.prompt_tokens}}}});
}

Json rerank_result(const http::RerankBody& body, const zen_rerank_result& r) {
  return structured({{"results", http::rerank_results(body, r)},
                     {"usage", {{"prompt_tokens", r.prompt_tokens}}}});
}

}  // namespace zen::mcp_server
