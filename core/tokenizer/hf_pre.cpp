#include "tokenizer/hf_pre.h"

#include "gguf/text.h"

namespace zen::tokenizer::hf {
namespace {

// As the real models' tokenizer.json files spell them.
constexpr std::string_view kGpt2 =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
constexpr std::string_view kLlama3 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kQwen2 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

struct Known {
  std::string_view name;
  std::vector<std::string_view> chain;
};
const Known kKnown[] = {
    {"gpt-2", {kGpt2}},
    {"llama-bpe", {kLlama3}},
    {"qwen2", {kQwen2}},
};

std::string escape_literal(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

void collect(const Node& p, std::vector<std::string>& chain, bool& byte_level_seen) {
  std::string type = p.at("type").str();
  if (byte_level_seen) {
    p.fail("pre-tokenizer " + gguf::quote(type) +
           " after ByteLevel is not supported (ByteLevel must come last)");
  }
  if (type == "Sequence") {
    Node list = p.at("pretokenizers");
    for (size_t i = 0; i < list.size(); ++i) collect(list.item(i), chain, byte_level_seen);
  } else if (type == "ByteLevel") {
    if (p.bool_or("add_prefix_space", false)) {
      p.at("add_prefix_space").fail("add_prefix_space = true is not supported");
    }
    if (p.bool_or("use_regex", true)) chain.emplace_back(kGpt2);
    byte_level_seen = true;
  } else if (type == "Split") {
    std::string behavior = p.string_or("behavior", "Isolated");
    if (behavior != "Isolated") {
      p.at("behavior")
          .fail("Split behavior " + gguf::quote(behavior) + " is not supported (only Isolated)");
    }
    if (p.bool_or("invert", false)) p.at("invert").fail("inverted Split is not supported");
    Node pattern = p.at("pattern");
    if (auto re = pattern.find("Regex")) {
      chain.push_back(re->str());
    } else if (auto lit = pattern.find("String")) {
      chain.push_back(escape_literal(lit->str()));
    } else {
      pattern.fail("expected a Regex or String pattern");
    }
  } else if (type == "Digits") {
    chain.emplace_back(p.bool_or("individual_digits", false) ? "\\p{N}" : "\\p{N}+");
  } else {
    p.at("type").fail("pre-tokenizer " + gguf::quote(type) +
                      " is not supported with byte-level BPE (supported: Sequence, Split, "
                      "Digits, ByteLevel)");
  }
}

}  // namespace

bool has_byte_level(const Node& pre) {
  if (!pre.is_object()) return false;
  auto type = pre.find("type");
  if (!type || !type->is_string()) return false;
  if (type->str() == "ByteLevel") return true;
  if (type->str() != "Sequence") return false;
  auto list = pre.find("pretokenizers");
  if (!list || !list->is_array()) return false;
  for (size_t i = 0; i < list->size(); ++i)
    if (has_byte_level(list->item(i))) return true;
  return false;
}

ByteLevelPre read_byte_level_pre(const Node& pre) {
  ByteLevelPre out;
  bool byte_level_seen = false;
  collect(pre, out.regexes, byte_level_seen);
  if (out.regexes.empty()) pre.fail("the pre-tokenizer splits nothing (no regex before ByteLevel)");
  for (const Known& k : kKnown) {
    if (k.chain.size() != out.regexes.size()) continue;
    bool same = true;
    for (size_t i = 0; i < k.chain.size(); ++i) same = same && k.chain[i] == out.regexes[i];
    if (same) out.name = k.name;
  }
  return out;
}

}  // namespace zen::tokenizer::hf
