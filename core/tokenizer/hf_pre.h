// The pre-tokenizer of a byte-level BPE tokenizer.json, as a tokenizer.ggml.pre name where it
// is one of llama.cpp's (the regexes spelled as Llama 3, Qwen 2 and GPT-2 ship them), else as
// the chain of Hugging Face regexes itself (tokenizer.zen.pre_regexes), which the tokenizer
// compiles with PCRE2 (pcre2_pattern_from_hf). Pre-tokenizers that are not a regex chain
// ending in ByteLevel are refused, naming the JSON path.
#pragma once

#include <string>
#include <vector>

#include "tokenizer/hf_json_node.h"

namespace zen::tokenizer::hf {

struct ByteLevelPre {
  std::string name;                  // llama.cpp's name, or "" for a custom chain
  std::vector<std::string> regexes;  // the chain as Hugging Face spells it
};

// pre: tokenizer.json's "pre_tokenizer" (the caller has checked that it uses ByteLevel).
ByteLevelPre read_byte_level_pre(const Node& pre);

// True if the node is, or is a Sequence containing, a ByteLevel pre-tokenizer.
bool has_byte_level(const Node& pre);

}  // namespace zen::tokenizer::hf
