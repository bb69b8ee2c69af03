// Per model type (config: tokenizer_config.json when present), the GGUF tokenizer metadata of a
// tokenizer.json (hf_json.h glues these together with the special tokens). Each refuses what it
// cannot represent faithfully, naming the file and JSON path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gguf/gguf.h"
#include "tokenizer/hf_json_node.h"
#include "tokenizer/hf_vocab_table.h"

namespace zen::tokenizer::hf {

struct ModelMetadata {
  VocabTable vocab;
  std::optional<int32_t> unk;      // the model's unknown token, when it names one
  std::vector<gguf::KeyValue> kv;  // tokenizer.ggml.model, tokens, token_type, ...
};

// "BPE": byte-level (gpt2) or SentencePiece-style with byte fallback (llama).
ModelMetadata convert_bpe(const Node& root, const std::optional<Node>& config);
// "WordPiece": BERT (bert).
ModelMetadata convert_wordpiece(const Node& root, const std::optional<Node>& config);
// "Unigram": SentencePiece unigram (t5).
ModelMetadata convert_unigram(const Node& root, const std::optional<Node>& config);

// GGUF token types before model-specific ones: CONTROL for special added tokens,
// USER_DEFINED for other added tokens, NORMAL otherwise.
std::vector<int32_t> base_token_types(const VocabTable& vocab);

// The token id of a name the model gives (model.unk_token), or Error naming `where`.
int32_t model_token(const VocabTable& vocab, const Node& where);

}  // namespace zen::tokenizer::hf
