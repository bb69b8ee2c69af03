// The OpenAI side of a generate request, read by the frontends' shared base: message shapes,
// tools and tool_choice, and the request fields, each refusal naming the field as OpenAI's
// error objects do. (What only the engine can check, such as call arguments that must parse as
// an object, is tested with core/chat: tests/unit/chat/messages_test.cpp.)
#include <gtest/gtest.h>

#include <string>

#include "chat_messages.h"
#include "chat_tools.h"
#include "openai_request.h"

namespace zen::frontend {
namespace {

template <class F>
std::string param_of(F&& f) {
  try {
    f();
  } catch (const RequestRefused& e) {
    return e.param();
  }
  return "no error";
}

std::string message_error(const char* messages) {
  return param_of([&] { read_messages(Json::parse(messages)); });
}

TEST(OpenAiMessages, ErrorsNameTheField) {
  EXPECT_EQ(message_error("[]"), "messages");
  EXPECT_EQ(message_error("{}"), "messages");
  EXPECT_EQ(message_error(R"([{"content": "x"}])"), "messages[0]");
  EXPECT_EQ(message_error(R"([{"role": "robot", "content": "x"}])"), "messages[0].role");
  EXPECT_EQ(message_error(R"([{"role": "user"}])"), "messages[0].content");
  EXPECT_EQ(message_error(R"([{"role": "user", "content": 5}])"), "messages[0].content");
  EXPECT_EQ(
      message_error(R"([{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}])"),
      "messages[0].content[0].type");
  EXPECT_EQ(message_error(R"([{"role": "assistant", "tool_calls": [{"type": "function"}]}])"),
            "messages[0].tool_calls[0].function");
  EXPECT_EQ(message_error(R"([{"role": "tool", "content": "x"}])"), "messages[0].tool_call_id");
  // Arguments are the engine's to parse: any text passes here.
  EXPECT_EQ(message_error(R"([{"role": "assistant", "tool_calls": [{"type": "function",
                "function": {"name": "f", "arguments": "{not json"}}]}])"),
            "no error");
}

TEST(OpenAiMessages, ContentPartsDeveloperRoleAndReasoning) {
  const std::vector<task::Message> m = read_messages(Json::parse(R"([
    {"role": "developer", "content": "Be brief."},
    {"role": "user", "content": [{"type": "text", "text": "Hello"}, {"type": "text", "text": "there"}]},
    {"role": "assistant", "content": null, "reasoning_content": "greet back", "refusal": null,
     "tool_calls": [{"id": "call_1", "type": "function",
                     "function": {"name": "f", "arguments": {"x": 1}}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "2"}
  ])"));
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].role, ZEN_ROLE_SYSTEM);
  ASSERT_EQ(m[1].content.size(), 2u);  // the engine joins the parts
  EXPECT_EQ(m[1].content[1].text, "there");
  EXPECT_EQ(m[2].role, ZEN_ROLE_ASSISTANT);
  EXPECT_TRUE(m[2].content.empty());
  EXPECT_EQ(m[2].reasoning, "greet back");
  ASSERT_EQ(m[2].tool_calls.size(), 1u);
  EXPECT_EQ(m[2].tool_calls[0].arguments, R"({"x":1})");  // an object is passed as its text
  EXPECT_EQ(m[3].tool_call_id, "call_1");
  EXPECT_TRUE(m[3].name.empty());  // the engine names it from the earlier call
}

Json weather_tool(const std::string& name = "get_weather") {
  return Json::parse(
      R"({"type": "function", "function": {"name": ")" + name +
      R"(", "description": "d", "parameters": {"type": "object", "b": 1, "a": 2}}})");
}

TEST(OpenAiTools, ValidatesTools) {
  EXPECT_TRUE(read_tools(Json()).empty());
  const std::vector<task::Tool> tools =
      read_tools(Json::array({weather_tool(), weather_tool("search-2")}));
  ASSERT_EQ(tools.size(), 2u);
  EXPECT_EQ(tools[1].name, "search-2");
  EXPECT_EQ(tools[0].parameters, R"({"type":"object","b":1,"a":2})");  // the client's key order
  auto tools_error = [](const Json& t) { return param_of([&] { read_tools(t); }); };
  EXPECT_EQ(tools_error(Json::object()), "tools");
  EXPECT_EQ(tools_error(Json::array({1})), "tools[0]");
  EXPECT_EQ(tools_error(Json::parse(R"([{"type": "code"}])")), "tools[0].type");
  EXPECT_EQ(tools_error(Json::array({weather_tool("bad name")})), "tools[0].function.name");
  EXPECT_EQ(tools_error(Json::array({weather_tool(std::string(65, 'a'))})),
            "tools[0].function.name");
  EXPECT_EQ(tools_error(Json::array({weather_tool(), weather_tool()})), "tools[1].function.name");
  EXPECT_EQ(tools_error(Json::parse(
                R"([{"type": "function", "function": {"name": "f", "parameters": [1]}}])")),
            "tools[0].function.parameters");
}

TEST(OpenAiTools, ToolChoice) {
  const std::vector<task::Tool> tools =
      read_tools(Json::array({weather_tool(), weather_tool("search")}));
  EXPECT_EQ(read_tool_choice(Json(), tools).kind, ZEN_TOOL_CHOICE_AUTO);
  EXPECT_EQ(read_tool_choice(Json(), {}).kind, ZEN_TOOL_CHOICE_AUTO);  // the engine: none
  EXPECT_EQ(read_tool_choice("none", tools).kind, ZEN_TOOL_CHOICE_NONE);
  EXPECT_EQ(read_tool_choice("required", tools).kind, ZEN_TOOL_CHOICE_REQUIRED);
  const ToolChoice named = read_tool_choice(
      Json::parse(R"({"type": "function", "function": {"name": "search"}})"), tools);
  EXPECT_EQ(named.kind, ZEN_TOOL_CHOICE_FUNCTION);
  EXPECT_EQ(named.name, "search");
  for (const char* bad :
       {R"("sometimes")", R"(7)", R"({"type": "function", "function": {"name": "nope"}})",
        R"({"type": "function"})", R"({"function": {"name": "search"}})"})
    EXPECT_EQ(param_of([&] { read_tool_choice(Json::parse(bad), tools); }), "tool_choice") << bad;
  EXPECT_EQ(param_of([&] { read_tool_choice("required", {}); }), "tool_choice");
}

TEST(OpenAiRequest, FieldsDefaultsAndRefusals) {
  const OpenAiRequest chat = parse_openai_request(Api::kChat, Json::parse(R"({
      "model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": true,
      "stream_options": {"include_usage": true}, "temperature": 0, "top_k": -1, "n": 2,
      "stop": "END", "logprobs": true, "top_logprobs": 3, "seed": -1,
      "chat_template_kwargs": {"enable_thinking": false}})"));
  const task::GenerateRequest& r = chat.request;
  EXPECT_TRUE(chat.stream && chat.include_usage);
  EXPECT_EQ(r.mode, ZEN_GENERATE_CHAT);
  EXPECT_TRUE(r.tag.starts_with("chatcmpl-")) << r.tag;
  EXPECT_EQ(r.model, "m");
  EXPECT_EQ(r.temperature, 0.0f);
  EXPECT_EQ(r.top_k, 0);  // vLLM's -1: off
  EXPECT_EQ(r.n, 2u);
  EXPECT_EQ(r.stops, std::vector<std::string>{"END"});
  EXPECT_TRUE(r.logprobs);
  EXPECT_EQ(r.top_logprobs, 3u);
  EXPECT_EQ(r.seed, std::optional<uint64_t>(~uint64_t{0}));
  EXPECT_EQ(r.template_vars, R"({"enable_thinking":false})");
  EXPECT_EQ(r.max_tokens, -1);  // chat: until the context ends

  const OpenAiRequest completion = parse_openai_request(
      Api::kCompletion, Json::parse(R"({"prompt": [1, 2, 3], "logprobs": 0})"));
  EXPECT_EQ(completion.request.mode, ZEN_GENERATE_TEXT);
  EXPECT_TRUE(completion.request.tag.starts_with("cmpl-"));
  EXPECT_EQ(completion.request.prompt_tokens, (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(completion.request.max_tokens, 16);  // OpenAI's completions default
  EXPECT_TRUE(completion.request.logprobs);

  auto chat_error = [](const char* body) {
    return param_of([&] { parse_openai_request(Api::kChat, Json::parse(body)); });
  };
  const char* hi = R"("messages": [{"role": "user", "content": "hi"}])";
  EXPECT_EQ(chat_error((std::string("{") + hi + R"(, "temprature": 1})").c_str()), "temprature");
  EXPECT_EQ(chat_error((std::string("{") + hi + R"(, "n": 17})").c_str()), "n");
  EXPECT_EQ(chat_error((std::string("{") + hi + R"(, "top_logprobs": 2})").c_str()),
            "top_logprobs");
  EXPECT_EQ(chat_error((std::string("{") + hi + R"(, "stream_options": {}})").c_str()),
            "stream_options");
  EXPECT_EQ(chat_error((std::string("{") + hi + R"(, "stop": [""]})").c_str()), "stop");
  EXPECT_EQ(
      chat_error(
          (std::string("{") + hi + R"(, "response_format": {"type": "json_object"}})").c_str()),
      "response_format");
  EXPECT_EQ(chat_error((std::string("{") + hi + R"(, "endpoint": "chat"})").c_str()), "endpoint");
  EXPECT_EQ(param_of([] {
              parse_openai_request(Api::kCompletion,
                                   Json::parse(R"({"prompt": "x", "echo": true})"));
            }),
            "echo");
}

}  // namespace
}  // namespace zen::frontend
