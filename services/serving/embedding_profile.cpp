#include "embedding_profile.h"

#include <zen/plugin.hpp>

#include "api_error.h"

namespace zen::serving {
namespace {

std::vector<std::string> strings(const gguf::File& f, const std::string& key) {
  std::vector<std::string> out;
  if (const gguf::Value* v = f.find(key)) {
    const gguf::Array& a = v->as_array_of(gguf::ValueType::STRING);
    for (size_t i = 0; i < a.size(); ++i) out.emplace_back(a.string_at(i));
  }
  return out;
}

}  // namespace

EmbeddingProfile read_embedding_profile(const gguf::File& f, const std::string& arch) {
  EmbeddingProfile p;
  const std::string k = arch + ".";
  if (auto v = f.find_int<uint32_t>(k + "pooling_type")) p.pooling = *v;
  if (const gguf::Value* v = f.find(k + "embedding.normalize")) p.normalize = v->as_bool();
  const std::vector<std::string> names = strings(f, k + "embedding.prompt_names");
  const std::vector<std::string> texts = strings(f, k + "embedding.prompts");
  if (names.size() != texts.size())
    throw Error(ZEN_ERR_INVALID_ARG,
                k + "embedding.prompt_names has " + std::to_string(names.size()) + " names but " +
                    k + "embedding.prompts " + std::to_string(texts.size()) + " prompts");
  for (size_t i = 0; i < names.size(); ++i) p.prompts.emplace_back(names[i], texts[i]);
  if (const gguf::Value* v = f.find(k + "embedding.default_prompt_name"))
    p.default_prompt = std::string(v->as_string());
  if (const gguf::Value* v = f.find(k + "embedding.matryoshka_dims")) {
    const gguf::Array& a = v->as_array();
    for (size_t i = 0; i < a.size(); ++i) p.matryoshka_dims.push_back(a.int_at<uint32_t>(i));
  }
  p.labels = strings(f, k + "classifier.output_labels");
  if (const gguf::Value* v = f.find("tokenizer.chat_template.rerank"))
    p.rerank_template = std::string(v->as_string());
  return p;
}

std::string EmbeddingProfile::prefix(const std::string& name) const {
  std::string want = name.empty() ? default_prompt : name;
  if (want.empty()) return "";
  auto find = [&](const std::string& n) -> const std::string* {
    for (const auto& [pn, text] : prompts)
      if (pn == n) return &text;
    return nullptr;
  };
  const std::string* text = find(want);
  if (!text && want == "search_query") text = find("query");
  if (!text && want == "search_document") text = find("document");
  if (text) return *text;
  std::string known;
  for (const auto& [pn, _] : prompts) known += (known.empty() ? "" : ", ") + pn;
  throw ApiError::invalid("input_type", "the model has no prompt '" + want + "' (" +
                                            (known.empty() ? "it has none" : "it has: " + known) +
                                            ")");
}

}  // namespace zen::serving
