// The token table of a Hugging Face tokenizer.json: the model's vocabulary plus
// "added_tokens", merged by id. Ids must run 0..n-1 without holes, each text naming one id;
// anything else is refused naming the file and JSON path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tokenizer/hf_json_node.h"

namespace zen::tokenizer::hf {

struct VocabTable {
  std::vector<std::string> tokens;  // by id
  std::vector<uint8_t> added;       // per id: listed in added_tokens
  std::vector<uint8_t> special;     // per id: an added token marked "special"
  std::unordered_map<std::string, int32_t> index;

  int32_t size() const { return static_cast<int32_t>(tokens.size()); }
  std::optional<int32_t> find(std::string_view text) const;
};

// model_entries: (text, id) pairs read from model.vocab, `where` naming it for errors.
// root: the tokenizer.json root (its "added_tokens" are read).
VocabTable build_vocab_table(std::vector<std::pair<std::string, int64_t>> model_entries,
                             const Node& where, const Node& root);

// tokenizer_config.json's added_tokens_decoder ({"id": {"content": ...}}) must agree with the
// table; its "special" flags count as well. Nothing when config is nullopt.
void apply_added_tokens_decoder(const std::optional<Node>& config, VocabTable& vocab);

// model.vocab as an object {"token": id, ...} (BPE, WordPiece).
std::vector<std::pair<std::string, int64_t>> vocab_object_entries(const Node& vocab);

}  // namespace zen::tokenizer::hf
