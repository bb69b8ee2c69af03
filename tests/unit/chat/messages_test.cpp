// chat_inputs(): OpenAI messages (arguments as JSON strings, null content, tool results without
// a name) rendered through the real templates must give exactly what Python jinja2 rendered
// through transformers for the transformers-style messages (tests/data/templates/fixtures,
// tools/make_template_fixtures.py). Plus the gemma conversion and the errors.
#include <gtest/gtest.h>

#include <ctime>
#include <filesystem>

#include "chat/messages.h"
#include "fixture_files.h"

namespace zen::chat {
namespace {

using ::zen::test::fixture_now;
using ::zen::test::read_file;

namespace fs = std::filesystem;
const fs::path kTemplates = fs::path(ZEN_TEST_DATA_DIR) / "templates";

// The transformers-style messages of a fixture as an OpenAI client sends them.
Json as_openai(const Json& messages) {
  Json out = messages;
  for (Json& m : out) {
    if (m["role"] == "assistant" && m.contains("tool_calls")) {
      if (m["content"] == "") m["content"] = nullptr;
      for (Json& call : m["tool_calls"])
        call["function"]["arguments"] = call["function"]["arguments"].dump();
    }
    if (m["role"] == "tool") m.erase("name");  // chat_inputs finds it from tool_call_id
  }
  return out;
}

TEST(ChatInputs, OpenAiMessagesRenderLikeTransformers) {
  int compared = 0;
  for (const auto& entry : fs::directory_iterator(kTemplates / "fixtures")) {
    const Json fixture = Json::parse(read_file(entry.path()));
    const std::string source = read_file(kTemplates / fixture.at("template").get<std::string>());
    const ToolFormat format = detect_tool_format(source, "");
    if (format == ToolFormat::kGemma) continue;  // converted differently (next test)
    const tmpl::Template tmpl = tmpl::Template::parse(source);
    for (const Json& c : fixture.at("cases")) {
      const std::string name = c.at("name").get<std::string>();
      if (!c.contains("expected") ||
          (name != "tools_available" && name != "tool_call_and_result" &&
           name != "tool_round_trip" && name != "multi_turn" && name != "system_user"))
        continue;
      const Json& in = c.at("inputs");
      tmpl::ChatInputs inputs =
          chat_inputs(as_openai(in.at("messages")), in.value("tools", Json()), format);
      inputs.add_generation_prompt = in.at("add_generation_prompt").get<bool>();
      if (in.contains("bos_token")) inputs.bos_token = in["bos_token"].get<std::string>();
      if (in.contains("eos_token")) inputs.eos_token = in["eos_token"].get<std::string>();
      inputs.extra = in.at("extra");
      inputs.options.now = fixture_now(fixture.at("now").get<std::string>());
      EXPECT_EQ(tmpl::render_chat(tmpl, inputs), c.at("expected").get<std::string>())
          << entry.path().filename() << " " << name;
      ++compared;
    }
  }
  EXPECT_GT(compared, 100);
}

TEST(ChatInputs, ContentPartsDeveloperRoleAndReasoning) {
  const Json messages = Json::parse(R"([
    {"role": "developer", "content": "Be brief."},
    {"role": "user", "content": [{"type": "text", "text": "Hello"}, {"type": "text", "text": "there"}]},
    {"role": "assistant", "content": "Hi.", "reasoning_content": "greet back", "refusal": null}
  ])");
  const tmpl::ChatInputs in = chat_inputs(messages, Json(), ToolFormat::kHermes);
  EXPECT_EQ(in.messages, Json::parse(R"([
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Hello\nthere"},
    {"role": "assistant", "content": "Hi.", "reasoning_content": "greet back"}
  ])"));
  EXPECT_FALSE(in.tools.has_value());
}

TEST(ChatInputs, GemmaGetsToolsInTheSystemTurnAndResultsAsUserText) {
  const Json tools = Json::parse(R"([{"type": "function", "function": {"name": "get_weather",
      "description": "Weather now.", "parameters": {"type": "object"}}}])");
  const Json messages = Json::parse(R"([
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
      "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "{\"temperature\": 21}"},
    {"role": "user", "content": "Thanks"}
  ])");
  const tmpl::ChatInputs in = chat_inputs(messages, tools, ToolFormat::kGemma);
  EXPECT_FALSE(in.tools.has_value());
  ASSERT_EQ(in.messages.size(), 4u);
  const std::string system = in.messages[0]["content"].get<std::string>();
  EXPECT_TRUE(system.starts_with("You have access to functions.")) << system;
  EXPECT_NE(system.find("{\"name\": function name, \"parameters\": dictionary of argument name "
                        "and its value}"),
            std::string::npos);
  EXPECT_NE(system.find("\"name\": \"get_weather\""), std::string::npos);
  EXPECT_TRUE(system.ends_with("\n\nBe brief.")) << system;
  EXPECT_EQ(in.messages[2], Json::parse(R"({"role": "assistant",
                            "content": "{\"name\":\"get_weather\",\"parameters\":{\"city\":\"Paris\"}}"})"));
  EXPECT_EQ(in.messages[3], Json::parse(R"({"role": "user",
      "content": "```tool_output\n{\"temperature\": 21}\n```\n\nThanks"})"));

  // Gemma 3's own template accepts the result (it raises unless turns alternate).
  tmpl::ChatInputs render = in;
  render.bos_token = "<bos>";
  render.add_generation_prompt = true;
  const std::string text = tmpl::render_chat(*tmpl::builtin_template("gemma3"), render);
  EXPECT_TRUE(
      text.ends_with("<start_of_turn>user\n```tool_output\n{\"temperature\": 21}\n```\n\n"
                     "Thanks<end_of_turn>\n<start_of_turn>model\n"))
      << text;
}

std::string error_param(const Json& messages, const Json& tools = Json()) {
  try {
    chat_inputs(messages, tools, ToolFormat::kHermes);
  } catch (const RequestError& e) {
    return e.param();
  }
  return "no error";
}

TEST(ChatInputs, ErrorsNameTheField) {
  EXPECT_EQ(error_param(Json::array()), "messages");
  EXPECT_EQ(error_param(Json::object()), "messages");
  EXPECT_EQ(error_param(Json::parse(R"([{"content": "x"}])")), "messages[0]");
  EXPECT_EQ(error_param(Json::parse(R"([{"role": "robot", "content": "x"}])")), "messages[0].role");
  EXPECT_EQ(error_param(Json::parse(R"([{"role": "user"}])")), "messages[0].content");
  EXPECT_EQ(error_param(Json::parse(R"([{"role": "user", "content": 5}])")), "messages[0].content");
  EXPECT_EQ(error_param(Json::parse(
                R"([{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}])")),
            "messages[0].content[0].type");
  EXPECT_EQ(error_param(Json::parse(R"([{"role": "assistant", "tool_calls": [{"type": "function",
                "function": {"name": "f", "arguments": "{not json"}}]}])")),
            "messages[0].tool_calls[0].function.arguments");
  EXPECT_EQ(error_param(Json::parse(R"([{"role": "assistant", "tool_calls": [{"type": "function",
                "function": {"name": "f", "arguments": "[1]"}}]}])")),
            "messages[0].tool_calls[0].function.arguments");
  EXPECT_EQ(error_param(Json::parse(R"([{"role": "tool", "content": "x"}])")),
            "messages[0].tool_call_id");
  EXPECT_EQ(error_param(Json::parse(R"([{"role": "user", "content": "x"}])"), Json::array({1})),
            "tools[0]");
}

}  // namespace
}  // namespace zen::chat
