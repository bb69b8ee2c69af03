// describe_json / describe_text: the header, every key in order, long arrays summarized,
// the tensor table; hostile strings cannot break the output.
#include <gtest/gtest.h>

#include <sstream>

#include "gguf/gguf_describe.h"
#include "gguf_writer.h"

namespace zen::gguf::test {
namespace {

Bytes describe_fixture() {
  std::vector<std::string> vocab;
  for (int i = 0; i < 100; ++i) vocab.push_back("tok" + std::to_string(i));
  Writer ok;
  ok.kv_string("general.architecture", "llama")
      .kv("tokenizer.ggml.tokens", T_ARRAY, string_array(vocab))
      .kv("x.short", T_ARRAY, array(T_I32, 2, cat({i32(-1), i32(2)})))
      .kv("x.nested", T_ARRAY, array(T_ARRAY, 1, array(T_U8, 1, u8(7))))
      .kv("x.flag", T_BOOL, u8(1))
      .kv("x.f", T_F32, f32(0.5f))
      .kv_string("x.binary", std::string("a\xFF\nb", 4))
      .tensor({"token_embd.weight", 12, {256, 4}})
      .tensor({"output_norm.weight", 0, {256}});
  return ok.build();
}

TEST(GgufDescribe, Json) {
  Bytes b = describe_fixture();
  File f = File::parse(b);
  nlohmann::json j = describe_json(f);
  EXPECT_EQ(j["version"], 3);
  EXPECT_EQ(j["file_size"], b.size());
  EXPECT_EQ(j["alignment"], 32);
  EXPECT_EQ(j["data_offset"], f.data_offset());
  const auto& meta = j["metadata"];
  ASSERT_EQ(meta.size(), 7u);
  EXPECT_EQ(meta[0]["key"], "general.architecture");
  EXPECT_EQ(meta[0]["type"], "string");
  EXPECT_EQ(meta[0]["value"], "llama");
  EXPECT_EQ(meta[1]["type"], "array of string");
  EXPECT_EQ(meta[1]["length"], 100);
  EXPECT_EQ(meta[1]["value"].size(), 8u);
  EXPECT_EQ(meta[1]["value"][7], "tok7");
  EXPECT_EQ(meta[1]["truncated"], true);
  EXPECT_EQ(meta[2]["value"], nlohmann::json::array({-1, 2}));
  EXPECT_FALSE(meta[2].contains("truncated"));
  EXPECT_EQ(meta[3]["value"][0]["type"], "array of u8");
  EXPECT_EQ(meta[3]["value"][0]["value"][0], 7);
  EXPECT_EQ(meta[4]["value"], true);
  EXPECT_EQ(meta[5]["value"], 0.5);
  EXPECT_EQ(meta[6]["value"], "a\xEF\xBF\xBD\nb");  // invalid byte replaced, dump cannot throw
  EXPECT_NO_THROW((void)j.dump());
  const auto& t = j["tensors"];
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0]["name"], "token_embd.weight");
  EXPECT_EQ(t[0]["type"], "Q4_K");
  EXPECT_EQ(t[0]["shape"], nlohmann::json::array({256, 4}));
  EXPECT_EQ(t[0]["size"], 4 * 144);
  EXPECT_EQ(t[0]["elements"], 1024);
  EXPECT_EQ(t[1]["offset"], 576);
  EXPECT_EQ(t[1]["file_offset"], f.data_offset() + 576);
}

TEST(GgufDescribe, Text) {
  Bytes b = describe_fixture();
  File f = File::parse(b);
  std::ostringstream out;
  describe_text(f, out);
  std::string s = out.str();
  EXPECT_NE(s.find("GGUF v3: " + std::to_string(b.size()) + " bytes, alignment 32"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("metadata: 7 keys"), std::string::npos) << s;
  EXPECT_NE(s.find("general.architecture = 'llama'"), std::string::npos) << s;
  EXPECT_NE(s.find("[string; 100]"), std::string::npos) << s;
  EXPECT_NE(s.find("tokenizer.ggml.tokens = ['tok0', 'tok1', 'tok2', 'tok3', 'tok4', 'tok5', ...]"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("x.binary = 'a\\xff\\nb'"), std::string::npos) << s;
  EXPECT_NE(s.find("x.f = 0.5"), std::string::npos) << s;
  EXPECT_NE(s.find("tensors: 2"), std::string::npos) << s;
  EXPECT_NE(s.find("token_embd.weight   Q4_K    [256, 4]"), std::string::npos) << s;
  // One line per key, header lines and table rows: no value can inject a newline.
  EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 1 + 1 + 7 + 1 + 1 + 2);
}

}  // namespace
}  // namespace zen::gguf::test
