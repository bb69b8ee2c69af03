// chat_inputs(): typed messages as a frontend sends them (arguments as JSON text, no content for
// a call-only turn, tool results without a name) rendered through the real templates must give
// exactly what Python jinja2 rendered through transformers for the transformers-style messages
// (tests/data/templates/fixtures, tools/make_template_fixtures.py). Plus the gemma conversion
// and the errors only the engine can see.
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

zen_chat_role role_of(const std::string& role) {
  if (role == "system") return ZEN_ROLE_SYSTEM;
  if (role == "assistant") return ZEN_ROLE_ASSISTANT;
  if (role == "tool") return ZEN_ROLE_TOOL;
  return ZEN_ROLE_USER;
}

// The transformers-style messages of a fixture as typed messages.
std::vector<task::Message> as_typed(const Json& messages) {
  std::vector<task::Message> out;
  for (const Json& m : messages) {
    const Json c = m.value("content", Json());
    const std::string content = c.is_string() ? c.get<std::string>() : "";
    task::Message t = task::Message::text(role_of(m.at("role").get<std::string>()), content);
    if (t.role == ZEN_ROLE_ASSISTANT && content.empty()) t.content.clear();
    if (m.contains("tool_calls"))
      for (const Json& call : m["tool_calls"])
        t.tool_calls.push_back(task::ToolCall{call.value("id", ""),
                                              call["function"]["name"].get<std::string>(),
                                              call["function"]["arguments"].dump()});
    if (m.contains("tool_call_id")) t.tool_call_id = m["tool_call_id"].get<std::string>();
    if (m.contains("name") && t.role != ZEN_ROLE_TOOL) t.name = m["name"].get<std::string>();
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<task::Tool> as_typed_tools(const Json& tools) {
  std::vector<task::Tool> out;
  if (!tools.is_array()) return out;
  for (const Json& t : tools) {
    const Json& fn = t.at("function");
    out.push_back(task::Tool{fn.at("name").get<std::string>(), fn.value("description", ""),
                             fn.contains("parameters") ? fn["parameters"].dump() : ""});
  }
  return out;
}

TEST(ChatInputs, TypedMessagesRenderLikeTransformers) {
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
      tmpl::ChatInputs inputs = chat_inputs(as_typed(in.at("messages")),
                                            as_typed_tools(in.value("tools", Json())), format);
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

TEST(ChatInputs, ContentPartsAndReasoning) {
  std::vector<task::Message> messages = {task::Message::text(ZEN_ROLE_SYSTEM, "Be brief."),
                                         task::Message::text(ZEN_ROLE_USER, "Hello"),
                                         task::Message::text(ZEN_ROLE_ASSISTANT, "Hi.")};
  messages[1].content.push_back(task::ContentPart{ZEN_CONTENT_TEXT, "there", {}, {}});
  messages[2].reasoning = "greet back";
  const tmpl::ChatInputs in = chat_inputs(messages, {}, ToolFormat::kHermes);
  EXPECT_EQ(in.messages, Json::parse(R"([
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Hello\nthere"},
    {"role": "assistant", "content": "Hi.", "reasoning_content": "greet back"}
  ])"));
  EXPECT_FALSE(in.tools.has_value());
}

TEST(ChatInputs, GemmaGetsToolsInTheSystemTurnAndResultsAsUserText) {
  const std::vector<task::Tool> tools = {
      task::Tool{"get_weather", "Weather now.", R"({"type": "object"})"}};
  const Json messages_json = Json::parse(R"([
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
      "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "{\"temperature\": 21}"},
    {"role": "user", "content": "Thanks"}
  ])");
  std::vector<task::Message> messages = as_typed(messages_json);
  messages[2].tool_calls[0].arguments = "{\"city\": \"Paris\"}";  // as the client wrote it
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

std::string error_param(const std::vector<task::Message>& messages,
                        const std::vector<task::Tool>& tools = {}) {
  try {
    chat_inputs(messages, tools, ToolFormat::kHermes);
  } catch (const RequestError& e) {
    return e.param();
  }
  return "no error";
}

task::Message call_with_arguments(const std::string& arguments) {
  task::Message m;
  m.role = ZEN_ROLE_ASSISTANT;
  m.tool_calls.push_back(task::ToolCall{"call_1", "f", arguments});
  return m;
}

// What only the engine sees: the protocol's own checks are the frontend's
// (tests/unit/frontend/openai_request_test.cpp).
TEST(ChatInputs, ErrorsNameTheMember) {
  EXPECT_EQ(error_param({}), "messages");
  task::Message image = task::Message::text(ZEN_ROLE_USER, "look");
  image.content.push_back(task::ContentPart{ZEN_CONTENT_IMAGE, "", {1, 2, 3}, "image/png"});
  EXPECT_EQ(error_param({image}), "messages[0].content[1].type");
  EXPECT_EQ(error_param({call_with_arguments("{not json")}),
            "messages[0].tool_calls[0].function.arguments");
  EXPECT_EQ(error_param({call_with_arguments("[1]")}),
            "messages[0].tool_calls[0].function.arguments");
  EXPECT_EQ(error_param({call_with_arguments(" ")}), "no error");  // blank: no arguments
  EXPECT_EQ(error_param({task::Message::text(ZEN_ROLE_USER, "x")}, {task::Tool{"f", "", "[1]"}}),
            "tools");
}

}  // namespace
}  // namespace zen::chat
