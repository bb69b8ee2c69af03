// Real chat templates (Gemma 3, Llama 2/3.x, Qwen 2.5/3, Mistral, Phi, DeepSeek, SmolLM, ...)
// rendered with many conversations must match, byte for byte, what Python jinja2 produced
// through transformers' apply_chat_template code path. The fixtures and how they were made:
// tools/make_template_fixtures.py. An expected error must be an error here too; when the template
// itself raised (raise_exception), the message must be the same.
#include <gtest/gtest.h>

#include <algorithm>
#include <ctime>
#include <filesystem>

#include "fixture_files.h"
#include "render_case.h"

namespace zen::tmpl::test {
namespace {

using ::zen::test::fixture_now;
using ::zen::test::read_file;

namespace fs = std::filesystem;

const fs::path kTemplates = fs::path(ZEN_TEST_DATA_DIR) / "templates";

std::vector<std::string> fixture_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kTemplates / "fixtures"))
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

ChatInputs chat_inputs(const Json& in, const std::tm& now) {
  ChatInputs c;
  c.messages = in.at("messages");
  if (in.contains("tools")) c.tools = in["tools"];
  c.add_generation_prompt = in.at("add_generation_prompt").get<bool>();
  if (in.contains("bos_token")) c.bos_token = in["bos_token"].get<std::string>();
  if (in.contains("eos_token")) c.eos_token = in["eos_token"].get<std::string>();
  c.extra = in.at("extra");
  c.options.now = now;
  return c;
}

class TemplateFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(TemplateFixture, MatchesPythonJinja) {
  Json fixture = Json::parse(read_file(kTemplates / "fixtures" / (GetParam() + ".json")));
  std::string source = read_file(kTemplates / fixture.at("template").get<std::string>());
  ASSERT_FALSE(source.empty());
  Template tmpl = Template::parse(source);
  std::tm now = fixture_now(fixture.at("now").get<std::string>());
  ASSERT_GE(fixture.at("cases").size(), 10u);
  for (const Json& c : fixture.at("cases")) {
    SCOPED_TRACE(c.at("name").get<std::string>());
    ChatInputs inputs = chat_inputs(c.at("inputs"), now);
    if (c.contains("expected")) {
      try {
        EXPECT_EQ(render_chat(tmpl, inputs), c["expected"].get<std::string>());
      } catch (const Error& e) {
        ADD_FAILURE() << "threw: " << e.what();
      }
      continue;
    }
    const Json& want = c.at("error");
    try {
      std::string out = render_chat(tmpl, inputs);
      ADD_FAILURE() << "rendered, but Python raised " << want.dump() << "\n" << out;
    } catch (const Error& e) {
      if (want.at("raised").get<bool>()) {
        EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(ErrorKind::Raised)) << e.what();
        EXPECT_EQ(e.detail(), want.at("message").get<std::string>());
      } else {
        EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(ErrorKind::Render))
            << e.what() << " (Python: " << want.dump() << ")";
      }
    }
  }
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(RealTemplates, TemplateFixture, ::testing::ValuesIn(fixture_names()),
                         test_name);

TEST(TemplateFixtures, CoverTheModelFamilies) {
  std::vector<std::string> names = fixture_names();
  for (const char* family : {"gemma-3", "Llama-2", "Llama-3.1", "Llama-3.2", "Qwen2.5",
                             "Qwen3-0.6B", "Mistral", "Phi-3", "phi-4", "DeepSeek-R1", "SmolLM"}) {
    SCOPED_TRACE(family);
    EXPECT_TRUE(std::any_of(names.begin(), names.end(), [&](const std::string& n) {
      return n.find(family) != std::string::npos;
    }));
  }
}

}  // namespace
}  // namespace zen::tmpl::test
