// Test fixtures for the tokenizer: the byte-level vocab GGUFs in tests/data/tokenizer, the real
// Gemma 3 GGUF (from ZEN_GEMMA3_GGUF), and the reference cases tools/make_tokenizer_fixtures.py
// recorded from llama.cpp for each.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gguf/gguf.h"
#include "tokenizer/tokenizer.h"

namespace zen::tokenizer::test {

struct Case {
  std::string name;
  std::string text;
  bool add_special = false;
  bool parse_special = false;
  std::vector<int32_t> ids;
  std::string decode;               // skip_special = false
  std::string decode_skip;          // skip_special = true
  std::vector<std::string> stream;  // StreamDecoder(skip_special) output per id, then flush()

  std::string label() const;  // "name (add_special=1 parse_special=0)"
};

struct Reference {
  nlohmann::json vocab;  // facts about the vocabulary (n_vocab, bos, eog, digests, samples)
  std::vector<Case> cases;
};

// "gpt2", "llama3", "qwen2" (committed) or "gemma3" (needs the environment variable).
inline const std::vector<std::string> kVocabNames = {"gpt2", "llama3", "qwen2", "gemma3"};

// Path of the vocab's GGUF, or nullopt with `why` set when it is not available here.
std::optional<std::string> gguf_path(const std::string& vocab, std::string& why);
Reference load_reference(const std::string& vocab);
Tokenizer load_tokenizer(const std::string& path);

std::string from_hex(const std::string& hex);
// Printable form of bytes for failure messages.
std::string show(const std::string& bytes);
// FNV-1a 64, as the fixture script computes its digests.
uint64_t fnv1a64(uint64_t h, const void* data, size_t n);
inline constexpr uint64_t kFnvOffset = 0xCBF29CE484222325ull;

}  // namespace zen::tokenizer::test
