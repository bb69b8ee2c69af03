// tokenizer.json "WordPiece" models (BERT) -> "bert", spelled as llama.cpp's converter spells
// them: "##x" becomes "x", "[X]" and added tokens stay, every other token x becomes "▁x".
#include <span>
#include <unordered_map>

#include "gguf/text.h"
#include "gguf/writer.h"
#include "tokenizer/hf_models.h"

namespace zen::tokenizer::hf {
namespace {

void put(std::vector<gguf::KeyValue>& kv, const char* key, gguf::Value v) {
  kv.push_back({key, std::move(v)});
}

std::string gguf_spelling(const std::string& t, bool added) {
  if (added || (t.size() >= 2 && t.front() == '[' && t.back() == ']')) return t;
  if (t.starts_with("##")) return t.substr(2);
  return "\xE2\x96\x81" + t;
}

}  // namespace

ModelMetadata convert_wordpiece(const Node& root, const std::optional<Node>& config) {
  Node model = root.at("model");
  ModelMetadata m;
  m.vocab = build_vocab_table(vocab_object_entries(model.at("vocab")), model.at("vocab"), root);
  apply_added_tokens_decoder(config, m.vocab);
  if (auto unk = model.find("unk_token")) m.unk = model_token(m.vocab, *unk);
  if (model.string_or("continuing_subword_prefix", "##") != "##") {
    model.at("continuing_subword_prefix").fail("only the prefix \"##\" is supported");
  }
  int64_t max_chars = model.int_or("max_input_chars_per_word", 100);
  if (max_chars < 0 || max_chars > UINT32_MAX) {
    model.at("max_input_chars_per_word").fail("out of range");
  }

  bool clean_text = false, chinese = false, strip = false, lower = false;
  if (auto n = root.find("normalizer")) {
    std::string type = n->at("type").str();
    if (type != "BertNormalizer") {
      n->at("type").fail("normalizer " + gguf::quote(type) +
                         " is not supported with WordPiece (only BertNormalizer)");
    }
    clean_text = n->bool_or("clean_text", true);
    chinese = n->bool_or("handle_chinese_chars", true);
    lower = n->bool_or("lowercase", true);
    strip = n->bool_or("strip_accents", lower);  // null: follows lowercase
  }
  Node pre = root.at("pre_tokenizer");
  if (pre.at("type").str() != "BertPreTokenizer") {
    pre.at("type").fail("pre-tokenizer " + gguf::quote(pre.at("type").str()) +
                        " is not supported with WordPiece (only BertPreTokenizer)");
  }

  std::vector<std::string> tokens;
  tokens.reserve(m.vocab.tokens.size());
  std::unordered_map<std::string, size_t> seen;
  for (size_t i = 0; i < m.vocab.tokens.size(); ++i) {
    tokens.push_back(gguf_spelling(m.vocab.tokens[i], m.vocab.added[i]));
    auto [it, fresh] = seen.emplace(tokens.back(), i);
    if (!fresh && !tokens.back().empty()) {
      model.at("vocab").fail("tokens " + gguf::quote(m.vocab.tokens[it->second]) + " and " +
                             gguf::quote(m.vocab.tokens[i]) + " are both " +
                             gguf::quote(tokens.back()) + " in llama.cpp's spelling");
    }
  }
  std::vector<int32_t> types = base_token_types(m.vocab);

  put(m.kv, "tokenizer.ggml.model", gguf::value_of("bert"));
  put(m.kv, "tokenizer.ggml.token_type_count", gguf::value_of(uint32_t{2}));
  put(m.kv, "tokenizer.ggml.tokens", gguf::array_of(std::span<const std::string>(tokens)));
  put(m.kv, "tokenizer.ggml.token_type", gguf::array_of(std::span<const int32_t>(types)));
  put(m.kv, "tokenizer.zen.bert.clean_text", gguf::value_of(clean_text));
  put(m.kv, "tokenizer.zen.bert.handle_chinese_chars", gguf::value_of(chinese));
  put(m.kv, "tokenizer.zen.bert.strip_accents", gguf::value_of(strip));
  put(m.kv, "tokenizer.zen.bert.lowercase", gguf::value_of(lower));
  put(m.kv, "tokenizer.zen.wordpiece.max_input_chars_per_word",
      gguf::value_of(static_cast<uint32_t>(max_chars)));
  return m;
}

}  // namespace zen::tokenizer::hf
