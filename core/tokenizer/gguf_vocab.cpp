#include "tokenizer/gguf_vocab.h"

#include <limits>
#include <string>

#include "gguf/text.h"
#include "tokenizer/error.h"
#include "tokenizer/pretokenizer.h"
#include "tokenizer/vocab_conventions.h"

namespace zen::tokenizer {
namespace {

using gguf::ValueType;

constexpr std::string_view kModel = "tokenizer.ggml.model";
constexpr std::string_view kPre = "tokenizer.ggml.pre";
constexpr std::string_view kTokens = "tokenizer.ggml.tokens";
constexpr std::string_view kScores = "tokenizer.ggml.scores";
constexpr std::string_view kTokenTypes = "tokenizer.ggml.token_type";
constexpr std::string_view kMerges = "tokenizer.ggml.merges";
constexpr std::string_view kAddBos = "tokenizer.ggml.add_bos_token";
constexpr std::string_view kAddEos = "tokenizer.ggml.add_eos_token";
constexpr std::string_view kAddSpacePrefix = "tokenizer.ggml.add_space_prefix";
// Written by gguf_metadata_from_hf (hf_json.h) for what GGUF has no key for.
constexpr std::string_view kPreRegexes = "tokenizer.zen.pre_regexes";
constexpr std::string_view kIgnoreMerges = "tokenizer.zen.ignore_merges";
constexpr std::string_view kSource = "tokenizer.zen.source";

[[noreturn]] void fail(std::string_view key, const std::string& what) {
  throw Error("tokenizer: metadata key '" + std::string(key) + "': " + what);
}

const gguf::Array& array_of(const gguf::File& f, std::string_view key, ValueType element) {
  const gguf::Value& v = f.at(key);
  if (!v.is_array_of(element)) {
    fail(key, "expected array of " + gguf::type_name(element) + ", got " + v.type_name());
  }
  return v.as_array();
}

std::optional<bool> find_bool(const gguf::File& f, std::string_view key) {
  const gguf::Value* v = f.find(key);
  if (!v) return std::nullopt;
  if (v->type() != ValueType::BOOL) fail(key, "expected bool, got " + v->type_name());
  return v->as_bool();
}

void check_length(std::string_view key, size_t got, size_t n_tokens) {
  if (got != n_tokens) {
    fail(key, std::to_string(got) + " entries for " + std::to_string(n_tokens) + " tokens");
  }
}

void read_tokens(const gguf::File& f, Vocab& v) {
  const gguf::Array& texts = array_of(f, kTokens, ValueType::STRING);
  size_t n = texts.size();
  if (n == 0) fail(kTokens, "the vocabulary is empty");
  if (n > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
    fail(kTokens, "too many tokens");

  const gguf::Value* scores = f.find(kScores);
  bool int_scores = false;
  if (scores) {
    int_scores = scores->is_array_of(ValueType::I32);
    if (!int_scores && !scores->is_array_of(ValueType::F32)) {
      fail(kScores, "expected array of f32 or i32, got " + scores->type_name());
    }
    check_length(kScores, scores->as_array().size(), n);
  }
  const gguf::Value* types = f.find(kTokenTypes);
  if (types) {
    if (!types->is_array() || !gguf::is_integer(types->as_array().element_type())) {
      fail(kTokenTypes, "expected array of integers, got " + types->type_name());
    }
    check_length(kTokenTypes, types->as_array().size(), n);
  }

  size_t text_bytes = 0;
  for (size_t i = 0; i < n; ++i) text_bytes += texts.string_at(i).size();
  v.reserve(n, text_bytes);
  for (size_t i = 0; i < n; ++i) {
    std::string_view text = texts.string_at(i);
    // llama.cpp renames empty tokens so that every text stays unique and findable.
    std::string placeholder;
    if (text.empty()) {
      placeholder = "[EMPTY_" + std::to_string(i) + "]";
      text = placeholder;
    }
    float score = 0.0f;
    if (scores) {
      const gguf::Array& a = scores->as_array();
      score = int_scores ? static_cast<float>(a.at<int32_t>(i)) : a.at<float>(i);
    }
    uint32_t attr = kAttrNormal;
    if (types) {
      int64_t type = types->as_array().int_at<int64_t>(i);
      attr =
          type < std::numeric_limits<int32_t>::min() || type > std::numeric_limits<int32_t>::max()
              ? kAttrUndefined
              : attr_from_token_type(static_cast<int32_t>(type));
    }
    v.add(text, score, attr);
  }
  v.finish();
}

// Byte tokens must be spelled <0xHH>: decoding turns them back into that byte.
void check_byte_tokens(const Vocab& v) {
  auto hex = [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (c >= 'a' && c <= 'f');
  };
  for (int32_t id = 0; id < v.size(); ++id) {
    if (!(v.attr(id) & kAttrByte)) continue;
    std::string_view t = v.text(id);
    if (t.size() != 6 || t.substr(0, 3) != "<0x" || !hex(t[3]) || !hex(t[4]) || t[5] != '>') {
      fail(kTokenTypes, "token " + std::to_string(id) + " " + gguf::quote(t) +
                            " is typed BYTE but is not spelled <0xHH>");
    }
  }
}

void read_merges(const gguf::File& f, Vocab& v) {
  const gguf::Array& merges = array_of(f, kMerges, ValueType::STRING);
  v.merges.reserve(merges.size());
  for (size_t i = 0; i < merges.size(); ++i) {
    std::string_view m = merges.string_at(i);
    // The parts are split at the first space after the first byte (a part may start with one).
    if (m.size() < 3 || m.find(' ', 1) == std::string_view::npos ||
        m.find(' ', 1) + 1 == m.size()) {
      fail(kMerges, "entry " + std::to_string(i) + " " + gguf::quote(m) +
                        " is not two parts separated by a space");
    }
    v.merges.emplace_back(m);
  }
}

struct SpecialKey {
  std::string_view key;
  int32_t SpecialIds::*field;
  bool used_for_encoding;  // out of range is an error; otherwise ignored as llama.cpp does
};

// Later entries may set the same field as earlier ones (deprecated fim key names).
constexpr SpecialKey kSpecialKeys[] = {
    {"tokenizer.ggml.bos_token_id", &SpecialIds::bos, true},
    {"tokenizer.ggml.eos_token_id", &SpecialIds::eos, true},
    {"tokenizer.ggml.eot_token_id", &SpecialIds::eot, true},
    {"tokenizer.ggml.eom_token_id", &SpecialIds::eom, true},
    {"tokenizer.ggml.unknown_token_id", &SpecialIds::unk, true},
    {"tokenizer.ggml.seperator_token_id", &SpecialIds::sep, false},
    {"tokenizer.ggml.padding_token_id", &SpecialIds::pad, false},
    {"tokenizer.ggml.mask_token_id", &SpecialIds::mask, false},
    {"tokenizer.ggml.fim_pre_token_id", &SpecialIds::fim_pre, false},
    {"tokenizer.ggml.fim_suf_token_id", &SpecialIds::fim_suf, false},
    {"tokenizer.ggml.fim_mid_token_id", &SpecialIds::fim_mid, false},
    {"tokenizer.ggml.fim_pad_token_id", &SpecialIds::fim_pad, false},
    {"tokenizer.ggml.fim_rep_token_id", &SpecialIds::fim_rep, false},
    {"tokenizer.ggml.fim_sep_token_id", &SpecialIds::fim_sep, false},
    {"tokenizer.ggml.prefix_token_id", &SpecialIds::fim_pre, false},
    {"tokenizer.ggml.suffix_token_id", &SpecialIds::fim_suf, false},
    {"tokenizer.ggml.middle_token_id", &SpecialIds::fim_mid, false},
};

void read_special_ids(const gguf::File& f, Vocab& v, const PreTokenizerSpec* pre) {
  SpecialIds& s = v.special;
  // llama.cpp's defaults when the file names no token; out of range means none. Metadata
  // converted from tokenizer.json names every token it has.
  if (f.find(kSource)) {
    // no defaults
  } else if (v.kind == VocabKind::kSpm) {
    s.bos = 1, s.eos = 2, s.unk = 0;
  } else if (v.kind == VocabKind::kWpm) {
    s.bos = 101, s.eos = 102, s.unk = 100, s.sep = 102, s.pad = 0, s.mask = 103;  // BERT's
  } else if (v.kind == VocabKind::kUgm) {
    s.eos = 1, s.unk = 2, s.pad = 0;  // T5's
  } else {
    s.bos = pre->no_default_bos ? kNoToken : 11;
    s.eos = 11;
  }
  for (int32_t* id : {&s.bos, &s.eos, &s.unk, &s.sep, &s.pad, &s.mask}) {
    if (!v.contains(*id)) *id = kNoToken;
  }

  for (const SpecialKey& k : kSpecialKeys) {
    const gguf::Value* value = f.find(k.key);
    if (!value) continue;
    if (!value->is_integer()) fail(k.key, "expected an integer, got " + value->type_name());
    auto id = f.get_int<int64_t>(k.key);
    if (id < 0) {
      v.special.*k.field = kNoToken;  // some converters write -1 for "none"
    } else if (id < v.size()) {
      v.special.*k.field = static_cast<int32_t>(id);
    } else if (k.used_for_encoding) {
      fail(k.key, "token id " + std::to_string(id) + " is outside the vocabulary (" +
                      std::to_string(v.size()) + " tokens)");
    }
  }
}

void read_wordpiece_options(const gguf::File& f, WordPieceOptions& o) {
  if (auto b = find_bool(f, "tokenizer.zen.bert.clean_text")) o.clean_text = *b;
  if (auto b = find_bool(f, "tokenizer.zen.bert.handle_chinese_chars")) o.handle_chinese_chars = *b;
  if (auto b = find_bool(f, "tokenizer.zen.bert.strip_accents")) o.strip_accents = *b;
  if (auto b = find_bool(f, "tokenizer.zen.bert.lowercase")) o.lowercase = *b;
  constexpr std::string_view kMaxChars = "tokenizer.zen.wordpiece.max_input_chars_per_word";
  if (const gguf::Value* n = f.find(kMaxChars)) {
    if (!n->is_integer()) fail(kMaxChars, "expected an integer, got " + n->type_name());
    o.max_word_chars = f.get_int<uint32_t>(kMaxChars);
  }
}

void read_unigram_data(const gguf::File& f, Vocab& v) {
  constexpr std::string_view kCharsmap = "tokenizer.ggml.precompiled_charsmap";
  if (const gguf::Value* c = f.find(kCharsmap)) {
    if (!c->is_array_of(ValueType::U8) && !c->is_array_of(ValueType::I8)) {
      fail(kCharsmap, "expected array of u8 or i8, got " + c->type_name());
    }
    const gguf::Array& a = c->as_array();
    v.precompiled_charsmap.resize(a.size());
    bool u8 = a.element_type() == ValueType::U8;
    for (size_t i = 0; i < a.size(); ++i) {
      v.precompiled_charsmap[i] = u8 ? a.at<uint8_t>(i) : static_cast<uint8_t>(a.at<int8_t>(i));
    }
  }
  if (auto b = find_bool(f, "tokenizer.ggml.remove_extra_whitespaces")) {
    v.remove_extra_whitespaces = *b;
  }
}

void read_flags(const gguf::File& f, Vocab& v, const PreTokenizerSpec* pre) {
  if (v.kind == VocabKind::kSpm) {
    v.add_bos = true;
    v.add_space_prefix = true;
  } else if (v.kind == VocabKind::kWpm) {
    // llama.cpp adds CLS (as BOS) and SEP; SEP is the EOS here.
    v.add_bos = true;
    v.add_eos = true;
    if (v.special.eos == kNoToken) v.special.eos = v.special.sep;
    read_wordpiece_options(f, v.wordpiece);
  } else if (v.kind == VocabKind::kUgm) {
    v.add_eos = true;
    v.add_space_prefix = true;
    read_unigram_data(f, v);
  } else {
    v.add_bos = pre->add_bos;
    v.ignore_merges = pre->ignore_merges;
  }
  if (auto b = find_bool(f, kAddSpacePrefix)) v.add_space_prefix = *b;
  if (auto b = find_bool(f, kIgnoreMerges)) v.ignore_merges = *b;
  if (auto b = find_bool(f, kAddBos)) v.add_bos = *b;
  if (auto b = find_bool(f, kAddEos)) v.add_eos = *b;
  if (auto b = find_bool(f, "tokenizer.ggml.add_sep_token"); b && *b && v.kind == VocabKind::kWpm) {
    v.add_eos = true;  // llama.cpp's flag for the trailing SEP, which is our EOS
  }
  if (v.add_bos && v.special.bos == kNoToken) {
    fail(kAddBos, "BOS is to be added but the vocabulary has no BOS token");
  }
  if (v.add_eos && v.special.eos == kNoToken) {
    fail(kAddEos, "EOS is to be added but the vocabulary has no EOS token");
  }
}

Vocab load(const gguf::File& f) {
  Vocab v;
  std::string_view model = f.get_string(kModel);
  if (model == "llama") {
    v.kind = VocabKind::kSpm;
  } else if (model == "gpt2") {
    v.kind = VocabKind::kBpe;
  } else if (model == "bert") {
    v.kind = VocabKind::kWpm;
  } else if (model == "t5") {
    v.kind = VocabKind::kUgm;
  } else {
    fail(kModel, "tokenizer model " + gguf::quote(model) +
                     " is not supported (supported: 'llama' SentencePiece, 'gpt2' byte-level BPE, "
                     "'bert' WordPiece, 't5' Unigram)");
  }
  if (f.find(kPre)) v.pre = f.get_string(kPre);
  const PreTokenizerSpec* pre = nullptr;
  static const PreTokenizerSpec kCustom;  // a regex chain from tokenizer.json: no defaults
  if (v.kind == VocabKind::kBpe && f.find(kPreRegexes)) {
    const gguf::Array& regexes = array_of(f, kPreRegexes, ValueType::STRING);
    if (regexes.empty()) fail(kPreRegexes, "the regex chain is empty");
    for (size_t i = 0; i < regexes.size(); ++i) {
      v.pre_regexes.push_back(pcre2_pattern_from_hf(regexes.string_at(i)));
    }
    pre = &kCustom;
  } else if (v.kind == VocabKind::kBpe) {
    pre = find_pre_tokenizer(v.pre);
    if (!pre) {
      fail(kPre, "pre-tokenizer " + gguf::quote(v.pre) +
                     " is not supported (supported: " + supported_pre_tokenizers() + ")");
    }
  }

  read_tokens(f, v);
  check_byte_tokens(v);
  if (v.kind == VocabKind::kBpe) read_merges(f, v);
  read_special_ids(f, v, pre);
  read_flags(f, v, pre);

  std::string_view name;
  if (const gguf::Value* n = f.find("general.name"); n && n->is_string()) name = n->as_string();
  apply_vocab_conventions(v, name);
  return v;
}

}  // namespace

Vocab load_vocab(const gguf::File& file) {
  try {
    return load(file);
  } catch (const gguf::Error& e) {
    // Typed lookups already name the key; keep one exception type for callers.
    throw Error(std::string("tokenizer: ") + e.what());
  }
}

}  // namespace zen::tokenizer
