// What an embedding or reranking model's file says about how to use it, beyond its graph: the
// pooling the plugin reads ({arch}.pooling_type, llama.cpp's numbering), whether vectors are
// normalized, the prompts a text is prefixed with (sentence-transformers' "prompts", such as
// Qwen3-Embedding's query instruction or EmbeddingGemma's task prefixes), the Matryoshka widths
// it was trained to be truncated to, and for a reranker its labels and prompt template.
// tools/convert_embedding_model.py writes these keys; docs/EMBEDDINGS.md lists them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gguf/gguf.h"

namespace zen::serving {

struct EmbeddingProfile {
  uint32_t pooling = 1;   // 1 mean, 2 CLS, 3 last token, 4 rank (a reranker)
  bool normalize = true;  // {arch}.embedding.normalize; absent: true, as sentence-transformers'
                          // published embedders and OpenAI's vectors are
  std::vector<std::pair<std::string, std::string>> prompts;  // name -> prefix
  std::string default_prompt;                                // a name in prompts, or empty
  std::vector<uint32_t> matryoshka_dims;  // empty: `dimensions` must be the full width
  // Rerankers: the classifier's labels (rank pooling) and the prompt a query and document are
  // put in (tokenizer.chat_template.rerank, "{query}" and "{document}"); without a template
  // the pair is the tokenizer's [CLS] query [SEP] document [SEP] with segment ids.
  std::vector<std::string> labels;
  std::string rerank_template;

  bool reranker() const { return pooling == 4; }
  // The prefix for a prompt name ("query", "document" or any the model has; Cohere's
  // "search_query" / "search_document" mean the first two); empty name: the default prompt.
  // Throws ApiError 400 naming the prompts the model has when it has no such one.
  std::string prefix(const std::string& name) const;
};

EmbeddingProfile read_embedding_profile(const gguf::File& file, const std::string& arch);

}  // namespace zen::serving
