// tokenizer.json "Unigram" models (T5, SentencePiece unigram) -> "t5", with the Precompiled
// normalizer's charsmap as tokenizer.ggml.precompiled_charsmap.
#include <span>

#include "gguf/text.h"
#include "gguf/writer.h"
#include "tokenizer/hf_models.h"

namespace zen::tokenizer::hf {
namespace {

constexpr std::string_view kSpmSpace = "\xE2\x96\x81";  // U+2581

void put(std::vector<gguf::KeyValue>& kv, const char* key, gguf::Value v) {
  kv.push_back({key, std::move(v)});
}

std::vector<uint8_t> base64(const Node& n) {
  const std::string& s = n.str();
  std::vector<uint8_t> out;
  out.reserve(s.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  size_t padding = 0;
  for (char c : s) {
    int v;
    if (c >= 'A' && c <= 'Z')
      v = c - 'A';
    else if (c >= 'a' && c <= 'z')
      v = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      v = c - '0' + 52;
    else if (c == '+')
      v = 62;
    else if (c == '/')
      v = 63;
    else if (c == '=') {
      ++padding;
      continue;
    } else
      n.fail("not base64");
    if (padding) n.fail("not base64 (data after '=')");
    acc = acc << 6 | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<uint8_t>(acc >> bits));
      acc &= (1u << bits) - 1;
    }
  }
  return out;
}

struct Normalization {
  std::vector<uint8_t> charsmap;
  bool strip_right = false;
  bool collapse_spaces = false;
};

void read_normalizer(const Node& n, Normalization& out) {
  std::string type = n.at("type").str();
  if (type == "Sequence") {
    Node list = n.at("normalizers");
    for (size_t i = 0; i < list.size(); ++i) read_normalizer(list.item(i), out);
  } else if (type == "Precompiled") {
    if (auto map = n.find("precompiled_charsmap")) out.charsmap = base64(*map);
  } else if (type == "Strip") {
    if (n.bool_or("strip_left", false) || !n.bool_or("strip_right", false)) {
      n.fail("only a Strip of the right end is supported");
    }
    out.strip_right = true;
  } else if (type == "Replace") {
    auto re = n.at("pattern").find("Regex");
    std::string content = n.at("content").str();
    if (!re || re->str() != " {2,}" || (content != " " && content != kSpmSpace)) {
      n.fail("only the Replace of \" {2,}\" by one space is supported");
    }
    out.collapse_spaces = true;
  } else {
    n.at("type").fail("normalizer " + gguf::quote(type) +
                      " is not supported with Unigram (supported: Precompiled, Strip, Replace, "
                      "Sequence)");
  }
}

bool read_metaspace(const Node& p) {
  if (p.at("type").str() != "Metaspace") {
    p.at("type").fail("pre-tokenizer " + gguf::quote(p.at("type").str()) +
                      " is not supported with Unigram (only Metaspace)");
  }
  if (p.string_or("replacement", kSpmSpace) != kSpmSpace) {
    p.at("replacement").fail("only the replacement \"\u2581\" is supported");
  }
  std::string scheme =
      p.string_or("prepend_scheme", p.bool_or("add_prefix_space", true) ? "always" : "never");
  if (scheme != "always" && scheme != "never") {
    p.at("prepend_scheme").fail("prepend_scheme " + gguf::quote(scheme) + " is not supported");
  }
  return scheme == "always";
}

}  // namespace

ModelMetadata convert_unigram(const Node& root, const std::optional<Node>& config) {
  Node model = root.at("model");
  if (model.bool_or("byte_fallback", false)) {
    model.at("byte_fallback").fail("Unigram with byte_fallback is not supported");
  }
  Node vocab = model.at("vocab");
  vocab.expect_array();
  std::vector<std::pair<std::string, int64_t>> entries;
  std::vector<float> model_scores;
  entries.reserve(vocab.size());
  for (size_t i = 0; i < vocab.size(); ++i) {
    Node e = vocab.item(i);
    e.expect_array();
    if (e.size() != 2) e.fail("expected [piece, score]");
    entries.emplace_back(e.item(0).str(), static_cast<int64_t>(i));
    model_scores.push_back(static_cast<float>(e.item(1).number()));
  }
  ModelMetadata m;
  m.vocab = build_vocab_table(std::move(entries), vocab, root);
  apply_added_tokens_decoder(config, m.vocab);
  if (auto unk = model.find("unk_id")) {
    int64_t id = unk->integer();
    if (id < 0 || id >= static_cast<int64_t>(model_scores.size())) unk->fail("out of range");
    m.unk = static_cast<int32_t>(id);
  }

  Normalization norm;
  if (auto n = root.find("normalizer")) read_normalizer(*n, norm);
  if (norm.strip_right != norm.collapse_spaces) {
    root.at("normalizer")
        .fail("a Strip without the Replace of \" {2,}\" (or the reverse) is not supported");
  }
  bool prefix = read_metaspace(root.at("pre_tokenizer"));

  std::vector<float> scores(m.vocab.tokens.size(), 0.0f);
  std::copy(model_scores.begin(), model_scores.end(), scores.begin());
  std::vector<int32_t> types = base_token_types(m.vocab);

  put(m.kv, "tokenizer.ggml.model", gguf::value_of("t5"));
  put(m.kv, "tokenizer.ggml.tokens", gguf::array_of(std::span<const std::string>(m.vocab.tokens)));
  put(m.kv, "tokenizer.ggml.scores", gguf::array_of(std::span<const float>(scores)));
  put(m.kv, "tokenizer.ggml.token_type", gguf::array_of(std::span<const int32_t>(types)));
  put(m.kv, "tokenizer.ggml.add_space_prefix", gguf::value_of(prefix));
  put(m.kv, "tokenizer.ggml.remove_extra_whitespaces", gguf::value_of(norm.strip_right));
  put(m.kv, "tokenizer.ggml.precompiled_charsmap",
      gguf::array_of(std::span<const uint8_t>(norm.charsmap)));
  return m;
}

}  // namespace zen::tokenizer::hf
