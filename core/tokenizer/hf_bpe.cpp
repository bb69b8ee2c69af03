// tokenizer.json "BPE" models: byte-level (GPT-2, Llama 3, Qwen) -> "gpt2", and
// SentencePiece-style with byte fallback (Llama 2, Gemma) -> "llama".
#include <cctype>
#include <limits>
#include <span>
#include <unordered_map>

#include "gguf/text.h"
#include "gguf/writer.h"
#include "tokenizer/hf_models.h"
#include "tokenizer/hf_pre.h"
#include "tokenizer/token_attr.h"

namespace zen::tokenizer::hf {
namespace {

constexpr std::string_view kSpmSpace = "\xE2\x96\x81";  // U+2581

struct Merge {
  std::string left, right;
};

std::vector<Merge> read_merges(const Node& model, const VocabTable& vocab) {
  std::vector<Merge> out;
  auto merges = model.find("merges");
  if (!merges) return out;
  merges->expect_array();
  out.reserve(merges->size());
  for (size_t i = 0; i < merges->size(); ++i) {
    Node m = merges->item(i);
    Merge x;
    if (m.is_string()) {
      const std::string& s = m.str();
      size_t space = s.find(' ');
      if (space == std::string::npos || space == 0 || space + 1 == s.size() ||
          s.find(' ', space + 1) != std::string::npos) {
        m.fail("merge " + gguf::quote(s) + " is not two tokens separated by one space");
      }
      x = {s.substr(0, space), s.substr(space + 1)};
    } else if (m.is_array() && m.size() == 2) {
      x = {m.item(0).str(), m.item(1).str()};
    } else {
      m.fail("expected a merge: \"left right\" or [left, right]");
    }
    if (x.left.find(' ') != std::string::npos || x.right.find(' ') != std::string::npos) {
      m.fail("merge part with a space is not supported");
    }
    for (const std::string* part : {&x.left, &x.right}) {
      if (!vocab.find(*part))
        m.fail("merge part " + gguf::quote(*part) + " is not in the vocabulary");
    }
    if (!vocab.find(x.left + x.right)) {
      m.fail("merge result " + gguf::quote(x.left + x.right) + " is not in the vocabulary");
    }
    out.push_back(std::move(x));
  }
  return out;
}

void check_plain_bpe(const Node& model) {
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    if (auto n = model.find(key); n && !n->str().empty()) {
      n->fail("a BPE " + std::string(key) + " is not supported");
    }
  }
  if (auto d = model.find("dropout"); d && d->number() != 0.0) {
    d->fail("BPE dropout is not supported (encoding would not be deterministic)");
  }
}

std::vector<std::string> merge_strings(const std::vector<Merge>& merges) {
  std::vector<std::string> out;
  out.reserve(merges.size());
  for (const Merge& m : merges) out.push_back(m.left + " " + m.right);
  return out;
}

void put(std::vector<gguf::KeyValue>& kv, const char* key, gguf::Value v) {
  kv.push_back({key, std::move(v)});
}

ModelMetadata byte_level(const Node& root, const Node& model, ModelMetadata m) {
  if (model.bool_or("byte_fallback", false)) {
    model.at("byte_fallback").fail("byte_fallback with a ByteLevel pre-tokenizer is not supported");
  }
  if (auto norm = root.find("normalizer")) {
    // Qwen's NFC: llama.cpp does not apply it either (docs/TOKENIZER.md).
    std::string type = norm->at("type").str();
    if (type != "NFC") {
      norm->at("type").fail(
          "normalizer " + gguf::quote(type) +
          " is not supported with byte-level BPE (only NFC, which is not applied)");
    }
  }
  ByteLevelPre pre = read_byte_level_pre(root.at("pre_tokenizer"));
  std::vector<Merge> merges = read_merges(model, m.vocab);

  put(m.kv, "tokenizer.ggml.model", gguf::value_of("gpt2"));
  if (!pre.name.empty()) {
    put(m.kv, "tokenizer.ggml.pre", gguf::value_of(pre.name));
  } else {
    put(m.kv, "tokenizer.zen.pre_regexes",
        gguf::array_of(std::span<const std::string>(pre.regexes)));
  }
  put(m.kv, "tokenizer.ggml.tokens", gguf::array_of(std::span<const std::string>(m.vocab.tokens)));
  std::vector<int32_t> types = base_token_types(m.vocab);
  put(m.kv, "tokenizer.ggml.token_type", gguf::array_of(std::span<const int32_t>(types)));
  std::vector<std::string> ms = merge_strings(merges);
  put(m.kv, "tokenizer.ggml.merges", gguf::array_of(std::span<const std::string>(ms)));
  put(m.kv, "tokenizer.zen.ignore_merges", gguf::value_of(model.bool_or("ignore_merges", false)));
  return m;
}

// What turns spaces into "▁" and whether a "▁" is put in front: normalizer Replace / Prepend
// (older converters) or a Metaspace pre-tokenizer (newer ones).
struct Spaces {
  bool replaced = false;
  bool prefix = false;
};

void read_spm_normalizer(const Node& n, Spaces& s) {
  std::string type = n.at("type").str();
  if (type == "Sequence") {
    Node list = n.at("normalizers");
    for (size_t i = 0; i < list.size(); ++i) read_spm_normalizer(list.item(i), s);
  } else if (type == "Replace") {
    Node pattern = n.at("pattern");
    auto lit = pattern.find("String");
    if (!lit || lit->str() != " " || n.at("content").str() != kSpmSpace) {
      n.fail("only the Replace of \" \" by \"\u2581\" is supported");
    }
    s.replaced = true;
  } else if (type == "Prepend") {
    if (n.at("prepend").str() != kSpmSpace) n.fail("only Prepend of \"\u2581\" is supported");
    s.prefix = true;
  } else {
    n.at("type").fail("normalizer " + gguf::quote(type) +
                      " is not supported with SentencePiece-style BPE (supported: Replace, "
                      "Prepend, Sequence)");
  }
}

void read_spm_pre(const Node& p, Spaces& s) {
  std::string type = p.at("type").str();
  if (type == "Split" && s.replaced) {
    // Gemma's converter splits at " ", which its normalizer has already replaced: a no-op.
    auto lit = p.at("pattern").find("String");
    if (lit && lit->str() == " ") return;
  }
  if (type != "Metaspace") {
    p.at("type").fail(
        "pre-tokenizer " + gguf::quote(type) +
        " is not supported with SentencePiece-style BPE (only Metaspace, or a Split at \" \" after "
        "spaces became \"▁\")");
  }
  if (p.string_or("replacement", kSpmSpace) != kSpmSpace) {
    p.at("replacement").fail("only the replacement \"\u2581\" is supported");
  }
  if (p.bool_or("split", true)) {
    p.at("split").fail("Metaspace split = true is not supported with SentencePiece-style BPE");
  }
  std::string scheme =
      p.string_or("prepend_scheme", p.bool_or("add_prefix_space", true) ? "always" : "never");
  s.replaced = true;
  s.prefix = scheme != "never";
}

ModelMetadata sentencepiece_style(const Node& root, const Node& model, ModelMetadata m) {
  if (!model.bool_or("byte_fallback", false)) {
    model.fail("BPE without ByteLevel and without byte_fallback is not supported");
  }
  Spaces spaces;
  if (auto n = root.find("normalizer")) read_spm_normalizer(*n, spaces);
  if (auto p = root.find("pre_tokenizer")) read_spm_pre(*p, spaces);
  if (!spaces.replaced) {
    root.fail(
        "SentencePiece-style BPE whose spaces are not replaced by \"\u2581\" is not supported");
  }
  std::vector<Merge> merges = read_merges(model, m.vocab);

  // Score-driven merging (the "llama" algorithm) makes HF's rank-driven merges when a token's
  // score ranks it by the first merge producing it: SentencePiece converters list every split
  // of a token at that token's rank. Tokens no merge produces rank below every merge.
  const int32_t n = m.vocab.size();
  std::vector<float> scores(static_cast<size_t>(n), 0.0f);
  std::vector<uint8_t> produced(static_cast<size_t>(n), 0);
  for (size_t r = 0; r < merges.size(); ++r) {
    int32_t id = *m.vocab.find(merges[r].left + merges[r].right);
    if (produced[static_cast<size_t>(id)]) continue;
    produced[static_cast<size_t>(id)] = 1;
    scores[static_cast<size_t>(id)] = -static_cast<float>(r);
  }
  std::vector<int32_t> types = base_token_types(m.vocab);
  for (int32_t id = 0; id < n; ++id) {
    const std::string& t = m.vocab.tokens[static_cast<size_t>(id)];
    auto i = static_cast<size_t>(id);
    if (!produced[i] && t.size() > 1 && !m.vocab.added[i]) {
      scores[i] = -static_cast<float>(merges.size()) - static_cast<float>(id);
    }
    if (m.vocab.added[i]) continue;
    if (t.size() == 6 && t.starts_with("<0x") && t.back() == '>' &&
        std::isxdigit(static_cast<unsigned char>(t[3])) &&
        std::isxdigit(static_cast<unsigned char>(t[4]))) {
      types[i] = static_cast<int32_t>(TokenType::kByte);
    }
    // An unknown token that is not an added token stays NORMAL: HF does not match its text.
  }

  put(m.kv, "tokenizer.ggml.model", gguf::value_of("llama"));
  put(m.kv, "tokenizer.ggml.pre", gguf::value_of("default"));
  put(m.kv, "tokenizer.ggml.tokens", gguf::array_of(std::span<const std::string>(m.vocab.tokens)));
  put(m.kv, "tokenizer.ggml.scores", gguf::array_of(std::span<const float>(scores)));
  put(m.kv, "tokenizer.ggml.token_type", gguf::array_of(std::span<const int32_t>(types)));
  put(m.kv, "tokenizer.ggml.add_space_prefix", gguf::value_of(spaces.prefix));
  return m;
}

}  // namespace

ModelMetadata convert_bpe(const Node& root, const std::optional<Node>& config) {
  Node model = root.at("model");
  check_plain_bpe(model);
  ModelMetadata m;
  m.vocab = build_vocab_table(vocab_object_entries(model.at("vocab")), model.at("vocab"), root);
  apply_added_tokens_decoder(config, m.vocab);
  if (auto unk = model.find("unk_token")) m.unk = model_token(m.vocab, *unk);
  auto pre = root.find("pre_tokenizer");
  if (pre && has_byte_level(*pre)) return byte_level(root, model, std::move(m));
  return sentencepiece_style(root, model, std::move(m));
}

std::vector<int32_t> base_token_types(const VocabTable& vocab) {
  std::vector<int32_t> types(vocab.tokens.size(), static_cast<int32_t>(TokenType::kNormal));
  for (size_t i = 0; i < types.size(); ++i) {
    if (vocab.special[i]) {
      types[i] = static_cast<int32_t>(TokenType::kControl);
    } else if (vocab.added[i]) {
      types[i] = static_cast<int32_t>(TokenType::kUserDefined);
    }
  }
  return types;
}

int32_t model_token(const VocabTable& vocab, const Node& where) {
  auto id = vocab.find(where.str());
  if (!id) where.fail("token " + gguf::quote(where.str()) + " is not in the vocabulary");
  return *id;
}

}  // namespace zen::tokenizer::hf
