// Tool-call format detection on the 34 real templates, the typed tool_choice, and forced
// prefixes (expected texts written from each format's documented call syntax).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "chat/tools.h"

#include <zen/task.h>
#include "template/template.h"

namespace zen::chat {
namespace {

std::string read_template(const std::string& name) {
  std::ifstream in(std::string(ZEN_TEST_DATA_DIR) + "/templates/" + name, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(DetectToolFormat, RealTemplates) {
  const std::map<std::string, ToolFormat> special = {
      {"NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja", ToolFormat::kHermes},
      {"Qwen-QwQ-32B.jinja", ToolFormat::kHermes},
      {"Qwen-Qwen2.5-7B-Instruct.jinja", ToolFormat::kHermes},
      {"Qwen-Qwen3-0.6B.jinja", ToolFormat::kHermes},
      {"meta-llama-Llama-3.1-8B-Instruct.jinja", ToolFormat::kLlama3},
      {"meta-llama-Llama-3.2-3B-Instruct.jinja", ToolFormat::kLlama3},
      {"meta-llama-Llama-3.3-70B-Instruct.jinja", ToolFormat::kLlama3},
      {"google-gemma-2-2b-it.jinja", ToolFormat::kGemma},
      {"google-gemma-3-270m-it.jinja", ToolFormat::kGemma},
      {"google-gemma-7b-it.jinja", ToolFormat::kGemma},
  };
  int seen = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(ZEN_TEST_DATA_DIR) + "/templates")) {
    if (entry.path().extension() != ".jinja") continue;
    const std::string name = entry.path().filename().string();
    auto it = special.find(name);
    const ToolFormat want = it == special.end() ? ToolFormat::kNone : it->second;
    EXPECT_EQ(to_string(detect_tool_format(read_template(name), "")), to_string(want)) << name;
    ++seen;
  }
  EXPECT_EQ(seen, 34);
}

TEST(DetectToolFormat, ArchitectureWhenTheFileHasNoTemplate) {
  EXPECT_EQ(detect_tool_format("", "gemma3"), ToolFormat::kGemma);
  EXPECT_EQ(detect_tool_format("", "llama"), ToolFormat::kNone);
  EXPECT_EQ(detect_tool_format(*tmpl::builtin_template("gemma3"), "gemma3"), ToolFormat::kGemma);
  EXPECT_EQ(detect_tool_format(*tmpl::builtin_template("chatml"), "qwen3"), ToolFormat::kNone);
}

TEST(Reasoning, TemplatesAndPrompts) {
  EXPECT_TRUE(template_has_reasoning(read_template("Qwen-Qwen3-0.6B.jinja")));
  EXPECT_FALSE(template_has_reasoning(read_template("Qwen-Qwen2.5-7B-Instruct.jinja")));
  EXPECT_TRUE(prompt_opens_reasoning("<|im_start|>assistant\n<think>\n"));
  EXPECT_FALSE(prompt_opens_reasoning("<|im_start|>assistant\n<think>\n</think>"));
  EXPECT_FALSE(prompt_opens_reasoning("<|im_start|>assistant\n"));
}

TEST(ToolChoice, FromTheTypedRequest) {
  const std::vector<std::string> names = {"get_weather", "search"};
  EXPECT_EQ(tool_choice(ZEN_TOOL_CHOICE_AUTO, "", true).kind, ToolChoice::Kind::kAuto);
  EXPECT_EQ(tool_choice(ZEN_TOOL_CHOICE_AUTO, "", false).kind, ToolChoice::Kind::kNone);
  EXPECT_EQ(tool_choice(ZEN_TOOL_CHOICE_NONE, "", true).kind, ToolChoice::Kind::kNone);
  EXPECT_EQ(tool_choice(ZEN_TOOL_CHOICE_REQUIRED, "", true).kind, ToolChoice::Kind::kRequired);
  const ToolChoice named = tool_choice(ZEN_TOOL_CHOICE_FUNCTION, "search", true);
  EXPECT_EQ(named.kind, ToolChoice::Kind::kFunction);
  EXPECT_EQ(named.name, "search");
  EXPECT_EQ(allowed_tool_names(named, names), std::vector<std::string>{"search"});
  EXPECT_TRUE(allowed_tool_names(tool_choice(ZEN_TOOL_CHOICE_NONE, "", true), names).empty());
  EXPECT_EQ(allowed_tool_names(tool_choice(ZEN_TOOL_CHOICE_AUTO, "", true), names), names);
}

TEST(ForcedPrefix, PerFormat) {
  const ToolChoice required{ToolChoice::Kind::kRequired, ""};
  const ToolChoice named{ToolChoice::Kind::kFunction, "get_weather"};
  const ToolChoice automatic{};
  EXPECT_EQ(forced_prefix(ToolFormat::kHermes, required).text, "<tool_call>\n{\"name\": \"");
  EXPECT_EQ(forced_prefix(ToolFormat::kHermes, named).text,
            "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": ");
  EXPECT_EQ(forced_prefix(ToolFormat::kHermes, named, true).text,
            "</think>\n\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": ");
  EXPECT_EQ(forced_prefix(ToolFormat::kLlama3, named).text,
            "{\"name\": \"get_weather\", \"parameters\": ");
  EXPECT_EQ(forced_prefix(ToolFormat::kGemma, required).text, "{\"name\": \"");
  const ForcedPrefix none = forced_prefix(ToolFormat::kNone, required);
  EXPECT_FALSE(none.available);
  const ForcedPrefix nothing = forced_prefix(ToolFormat::kNone, automatic);
  EXPECT_TRUE(nothing.available);
  EXPECT_EQ(nothing.text, "");
}

}  // namespace
}  // namespace zen::chat
