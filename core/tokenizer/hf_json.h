// Tokenizer metadata from a Hugging Face model directory: the GGUF keys (tokenizer.ggml.*)
// llama.cpp's convert_hf_to_gguf.py would write for its tokenizer.json, so that
// gguf::File::assemble(metadata, {}, nullptr) gives a File Tokenizer::from_gguf reads, and a
// tokenizer.json builds the same tokenizer the GGUF path would. Where GGUF has no key for
// something tokenizer.json says, a tokenizer.zen.* key carries it (docs/TOKENIZER.md).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "gguf/gguf.h"

namespace zen::tokenizer {

// Reads DIR/tokenizer.json and, when present, DIR/tokenizer_config.json (add_bos_token,
// add_eos_token, bos/eos/unk/pad/sep/cls/mask token names, added_tokens_decoder) and
// DIR/special_tokens_map.json. Error (tokenizer/error.h) naming the file and JSON path on
// anything malformed or unsupported.
std::vector<gguf::KeyValue> gguf_metadata_from_hf(const std::filesystem::path& dir);

// The same for a tokenizer.json's text alone (no tokenizer_config.json): the fuzzer's entry.
std::vector<gguf::KeyValue> gguf_metadata_from_tokenizer_json(const std::string& text);

}  // namespace zen::tokenizer
