// render_chat and the built-in templates: the variables transformers passes, the reasoning
// aliasing, the clock, the embedded Gemma 3 and ChatML templates, and concurrent renders.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "fixture_files.h"
#include "render_case.h"

namespace zen::tmpl::test {
namespace {

using ::zen::test::read_file;

Json msg(const char* role, Json content) { return Json{{"role", role}, {"content", content}}; }

TEST(BuiltinTemplates, Gemma3IsTheModelsOwnTemplate) {
  std::optional<std::string_view> gemma = builtin_template("gemma3");
  ASSERT_TRUE(gemma.has_value());
  // The copy of google/gemma-3-270m-it's tokenizer_config.json chat_template the fixtures use.
  std::string file = read_file(std::filesystem::path(ZEN_TEST_DATA_DIR) / "templates" /
                               "google-gemma-3-270m-it.jinja");
  EXPECT_EQ(*gemma, file);
  EXPECT_EQ(builtin_template("gemma3_text"), gemma);
}

TEST(BuiltinTemplates, Gemma3RendersGemmaTurns) {
  ChatInputs in;
  in.messages = Json::array({msg("system", "You are terse."), msg("user", " Hi "),
                             msg("assistant", "Hello!"), msg("user", "Bye")});
  in.add_generation_prompt = true;
  in.bos_token = "<bos>";
  EXPECT_EQ(render_chat(*builtin_template("gemma3"), in),
            "<bos><start_of_turn>user\nYou are terse.\n\nHi<end_of_turn>\n"
            "<start_of_turn>model\nHello!<end_of_turn>\n"
            "<start_of_turn>user\nBye<end_of_turn>\n"
            "<start_of_turn>model\n");
}

TEST(BuiltinTemplates, Gemma3RefusesNonAlternatingRoles) {
  ChatInputs in;
  in.messages = Json::array({msg("user", "a"), msg("user", "b")});
  try {
    render_chat(*builtin_template("gemma3"), in);
    ADD_FAILURE() << "rendered";
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(ErrorKind::Raised));
    EXPECT_EQ(e.detail(), "Conversation roles must alternate user/assistant/user/assistant/...");
  }
}

TEST(BuiltinTemplates, ChatmlHandlesStringAndPartsContent) {
  ChatInputs in;
  in.messages = Json::array(
      {msg("system", "S"),
       msg("user", Json::array({Json{{"type", "text"}, {"text", "a"}}, Json{{"type", "image"}},
                                Json{{"type", "text"}, {"text", "b"}}}))});
  in.add_generation_prompt = true;
  EXPECT_EQ(render_chat(*builtin_template("chatml"), in),
            "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nab<|im_end|>\n"
            "<|im_start|>assistant\n");
  in.add_generation_prompt = false;
  EXPECT_EQ(render_chat(*builtin_template("chatml"), in),
            "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nab<|im_end|>\n");
}

TEST(BuiltinTemplates, UnknownArchitectureHasNone) {
  EXPECT_FALSE(builtin_template("llama").has_value());
  EXPECT_FALSE(builtin_template("").has_value());
}

TEST(RenderChat, PassesTheVariablesTransformersPasses) {
  const char* src =
      "{{ messages|length }} {{ tools is defined }} {{ tools is none }} {{ documents is none }} "
      "{{ add_generation_prompt }} {{ bos_token is defined }} {{ eos_token }} {{ enable_thinking "
      "}}";
  ChatInputs in;
  in.messages = Json::array({msg("user", "x")});
  in.eos_token = "</s>";
  in.extra = Json{{"enable_thinking", false}};
  EXPECT_EQ(render_chat(src, in), "1 True True True False False </s> False");
  in.tools = Json::array({Json{{"type", "function"}}});
  in.add_generation_prompt = true;
  EXPECT_EQ(render_chat("{{ tools|length }} {{ add_generation_prompt }}", in), "1 True");
}

TEST(RenderChat, AliasesReasoningLikeTransformers) {
  // transformers builds {"thinking": r, **message, "reasoning_content": r}.
  ChatInputs in;
  in.messages = Json::array({Json{{"role", "assistant"}, {"content", "4"}, {"reasoning", "2+2"}},
                             Json{{"role", "assistant"}, {"thinking", "t"}, {"content", "c"}}});
  EXPECT_EQ(render_chat("{% for m in messages %}{{ m|tojson }}\n{% endfor %}", in),
            "{\"thinking\": \"2+2\", \"role\": \"assistant\", \"content\": \"4\", \"reasoning\": "
            "\"2+2\", \"reasoning_content\": \"2+2\"}\n"
            "{\"thinking\": \"t\", \"role\": \"assistant\", \"content\": \"c\", "
            "\"reasoning_content\": \"t\"}\n");
}

TEST(RenderChat, RefusesMalformedInputs) {
  ChatInputs in;
  in.messages = Json::object();
  expect_error([&] { render_chat("x", in); }, ErrorKind::Render, "messages must be a JSON array");
  in.messages = Json::array({"just a string"});
  expect_error([&] { render_chat("x", in); }, ErrorKind::Render, "every message must be");
  in.messages = Json::array();
  in.extra = Json{{"messages", 1}};
  expect_error([&] { render_chat("x", in); }, ErrorKind::Render, "would replace a chat input");
}

TEST(RenderChat, StrftimeNowUsesTheGivenClock) {
  std::tm t{};
  t.tm_year = 124, t.tm_mon = 6, t.tm_mday = 26, t.tm_hour = 9, t.tm_min = 5;
  ChatInputs in;
  in.options.now = t;
  EXPECT_EQ(render_chat("{{ strftime_now('%d %b %Y %H:%M') }}", in), "26 Jul 2024 09:05");
  // Without a clock it reports the current year.
  std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  std::string year = render("{{ strftime_now('%Y') }}");
  EXPECT_TRUE(year == std::to_string(local.tm_year + 1900) ||
              year == std::to_string(local.tm_year + 1901));  // a render straddling New Year
}

TEST(TemplateApi, AcceptsPlainNlohmannJsonContext) {
  // nlohmann::json converts implicitly; its objects are key-sorted, ordered_json keeps order.
  nlohmann::json sorted_ctx = {{"d", {{"b", 1}, {"a", 2}}}};
  EXPECT_EQ(Template::parse("{{ d|tojson }}").render(sorted_ctx), "{\"a\": 2, \"b\": 1}");
  EXPECT_EQ(Template::parse("{{ d|tojson }}").render(Json::parse(R"({"d": {"b": 1, "a": 2}})")),
            "{\"b\": 1, \"a\": 2}");
}

TEST(RenderChat, OneTemplateRendersConcurrently) {
  Template tmpl = Template::parse(
      "{% set ns = namespace(n=0) %}{% for m in messages %}{% set ns.n = ns.n + m.content|length "
      "%}{% endfor %}{{ ns.n }}:{{ messages|map(attribute='content')|join('|') }}");
  std::vector<std::string> results(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] {
      for (int k = 0; k < 200; ++k) {
        Json ctx{
            {"messages", Json::array({msg("user", std::string(i + 1, 'a')), msg("user", "bc")})}};
        results[i] = tmpl.render(ctx);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(results[0], "3:a|bc");
  EXPECT_EQ(results[3], "6:aaaa|bc");
}

}  // namespace
}  // namespace zen::tmpl::test
