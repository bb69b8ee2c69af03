// Special-token roles and the "add BOS/EOS" flags of a Hugging Face tokenizer, the way
// llama.cpp's converter (gguf-py SpecialVocab) derives them: token names from
// tokenizer_config.json, else special_tokens_map.json; the post-processor (TemplateProcessing,
// BertProcessing, RobertaProcessing) says which token goes first and last when special tokens
// are added; tokenizer_config.json's add_bos_token / add_eos_token override that. CLS stands in
// for BOS and SEP for EOS where those are not named.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "gguf/gguf.h"
#include "tokenizer/hf_json_node.h"
#include "tokenizer/hf_vocab_table.h"

namespace zen::tokenizer::hf {

struct SpecialTokens {
  std::optional<int32_t> bos, eos, unk, pad, sep, mask;
  bool add_bos = false;
  bool add_eos = false;
};

// root: tokenizer.json; config / map: tokenizer_config.json / special_tokens_map.json when
// present. unk: the model's own unknown token, if it names one.
SpecialTokens read_special_tokens(const Node& root, const std::optional<Node>& config,
                                  const std::optional<Node>& map, const VocabTable& vocab,
                                  std::optional<int32_t> unk);

// tokenizer.ggml.{bos,eos,unknown,padding,seperator,mask}_token_id and add_{bos,eos}_token.
void append_special_metadata(const SpecialTokens& s, std::vector<gguf::KeyValue>& kv);

}  // namespace zen::tokenizer::hf
