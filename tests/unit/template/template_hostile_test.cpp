// Hostile templates and inputs: invalid UTF-8, truncated and mutated real templates, values
// nested or chained without end, self-referencing namespaces. Each must render or fail with an
// Error; none may crash or run away.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "render_case.h"

namespace zen::tmpl::test {
namespace {

std::string read_template(const char* name) {
  std::ifstream f(std::filesystem::path(ZEN_TEST_DATA_DIR) / "templates" / name, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// A conversation with a tool call, to drive as much of a template as possible.
ChatInputs rich_chat() {
  ChatInputs in;
  in.messages = Json::parse(R"([
    {"role": "system", "content": "sys"},
    {"role": "user", "content": "hi \u00e9"},
    {"role": "assistant", "content": "", "tool_calls": [{"id": "call12345", "type": "function",
      "function": {"name": "f", "arguments": {"a": 1}}}]},
    {"role": "tool", "tool_call_id": "call12345", "content": "42"},
    {"role": "assistant", "content": "done", "reasoning_content": "r"}])");
  in.tools = Json::parse(R"([{"type": "function", "function": {"name": "f", "description": "d",
    "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}}}])");
  in.add_generation_prompt = true;
  in.bos_token = "<s>";
  in.eos_token = "</s>";
  return in;
}

// Parses and renders; returns whether it rendered. Anything but zen::tmpl::Error escapes and
// fails the test.
bool survives(std::string_view source, const ChatInputs& in, const Limits& limits) {
  try {
    render_chat(source, in, limits);
    return true;
  } catch (const Error&) {
    return false;
  }
}

TEST(TemplateHostile, InvalidUtf8PassesThroughUnchanged) {
  EXPECT_EQ(render("\xff\xfe{{ s }}\xc3", R"({"s": "ok"})"), "\xff\xfeok\xc3");
  Template t =
      Template::parse("{{ s|length }}|{{ s[1:] }}|{{ s|upper }}|{{ s|trim }}|{{ s|reverse }}");
  Json ctx = Json::object();
  ctx["s"] = std::string(" a\xff\xc3(b ");  // invalid bytes stay single characters
  EXPECT_EQ(t.render(ctx),
            "7|a\xff\xc3(b | A\xff\xc3(B |a\xff\xc3(b| b(\xc3\xff"
            "a ");
}

TEST(TemplateHostile, InvalidUtf8InJsonOutputDoesNotThrowOutsideError) {
  Json ctx = Json::object();
  ctx["s"] = std::string("\xe2\x82");
  EXPECT_EQ(render("{{ s|tojson }}", ctx.dump(-1, ' ', false, Json::error_handler_t::ignore)),
            "\"\"");
  EXPECT_EQ(Template::parse("{{ s|tojson }}").render(ctx), "\"\xe2\x82\"");
}

TEST(TemplateHostile, EveryTruncationOfARealTemplateParsesOrFails) {
  std::string source = read_template("Qwen-Qwen3-0.6B.jinja");
  ASSERT_GT(source.size(), 1000u);
  ChatInputs in = rich_chat();
  Limits limits;
  limits.max_steps = 100000;
  size_t rendered = 0;
  for (size_t n = 0; n <= source.size(); ++n) rendered += survives(source.substr(0, n), in, limits);
  EXPECT_GT(rendered, 0u);  // some prefixes are complete templates
  EXPECT_TRUE(survives(source, in, limits));
}

TEST(TemplateHostile, RandomMutationsOfRealTemplatesNeverCrash) {
  std::mt19937 rng(1234);
  const char* names[] = {"meta-llama-Llama-3.1-8B-Instruct.jinja", "openai-gpt-oss-120b.jinja",
                         "google-gemma-3-270m-it.jinja", "Qwen3-Coder.jinja"};
  const char alphabet[] = "{}%#-+()[]'\"|.,:=~*/ \nabcxyz0123456789\xff\xc3";
  ChatInputs in = rich_chat();
  Limits limits;
  limits.max_steps = 50000;
  for (const char* name : names) {
    std::string base = read_template(name);
    ASSERT_FALSE(base.empty()) << name;
    for (int round = 0; round < 300; ++round) {
      std::string s = base;
      int edits = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < edits; ++k) {
        size_t at = rng() % s.size();
        switch (rng() % 3) {
          case 0:
            s[at] = alphabet[rng() % (sizeof alphabet - 1)];
            break;
          case 1:
            s.erase(at, 1 + rng() % 8);
            break;
          default:
            s.insert(at, 1, alphabet[rng() % (sizeof alphabet - 1)]);
        }
      }
      survives(s, in, limits);
    }
  }
}

TEST(TemplateHostile, DeepValuesAreRefusedNotRecursedInto) {
  // A 600-deep JSON input.
  Json deep = Json::array();
  for (int i = 0; i < 600; ++i) deep = Json::array({deep});
  expect_error(
      [&] {
        Template::parse("{{ x }}").render(Json{{"x", deep}});
      },
      ErrorKind::Limit, "nested deeper than 512");
  // Lists nested by a loop, generators chained by a loop.
  expect_render_error(
      "{% set ns = namespace(v=[]) %}{% for i in range(100000) %}{% set ns.v = [ns.v] %}"
      "{% endfor %}{{ ns.v }}",
      "{}", ErrorKind::Limit, "nested deeper than 512");
  expect_render_error(
      "{% set ns = namespace(g=[1]) %}{% for i in range(100000) %}{% set ns.g = ns.g|select %}"
      "{% endfor %}{{ ns.g|list }}",
      "{}", ErrorKind::Limit, "nested deeper than 512");
  // A namespace holding itself cannot be printed forever.
  expect_render_error("{% set ns = namespace() %}{% set ns.me = ns %}{{ ns }}", "{}",
                      ErrorKind::Limit, "nested too deeply");
}

TEST(TemplateHostile, GrowingStringsHitTheBudget) {
  Limits limits;
  limits.max_steps = 2000000;
  expect_render_error(
      "{% set ns = namespace(s='') %}{% for i in range(100000) %}{% set ns.s = ns.s ~ "
      "'0123456789012345678901234567890123456789012345678901234567890123' %}{% endfor %}",
      "{}", ErrorKind::Limit, "evaluation steps", limits);
}

TEST(TemplateHostile, OutOfRangeNumbersAreErrors) {
  expect_error(
      [&] { Template::parse("{{ x }}").render(Json::parse(R"({"x": 18446744073709551615})")); },
      ErrorKind::Render, "too large");
  EXPECT_EQ(render("{{ x }} {{ -x }} {{ x * 0 }}", R"({"x": 1e308})"), "1e+308 -1e+308 0.0");
  EXPECT_EQ(render("{{ x * 10 }}", R"({"x": 1e308})"), "inf");
}

TEST(TemplateHostile, LargeButReasonableInputsRender) {
  std::string big(4 << 20, 'x');
  Json ctx{{"messages", Json::array({Json{{"role", "user"}, {"content", big}}})}};
  std::string out =
      Template::parse("{% for m in messages %}{{ m.content|trim }}{% endfor %}").render(ctx);
  EXPECT_EQ(out.size(), big.size());
  std::string many;
  for (int i = 0; i < 20000; ++i) many += "{{ i }}";
  EXPECT_EQ(render(many, R"({"i": 7})").size(), 20000u);
}

}  // namespace
}  // namespace zen::tmpl::test
