#include "tokenizer/tokenizer.h"

#include <optional>

#include "tokenizer/bpe.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/gguf_vocab.h"
#include "tokenizer/pretokenizer.h"
#include "tokenizer/special_matcher.h"
#include "tokenizer/spm.h"
#include "tokenizer/ugm.h"
#include "tokenizer/utf8.h"
#include "tokenizer/wpm.h"

namespace zen::tokenizer {
namespace {

constexpr std::string_view kSpmSpace = "\xE2\x96\x81";  // U+2581 "▁"

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  std::string out;
  out.reserve(s.size());
  size_t pos = 0;
  for (size_t hit; (hit = s.find(from, pos)) != std::string::npos; pos = hit + from.size()) {
    out.append(s, pos, hit - pos).append(to);
  }
  out.append(s, pos, std::string::npos);
  s.swap(out);
}

uint8_t hex_digit(char c) {
  if (c >= '0' && c <= '9') return static_cast<uint8_t>(c - '0');
  if (c >= 'A' && c <= 'F') return static_cast<uint8_t>(c - 'A' + 10);
  return static_cast<uint8_t>(c - 'a' + 10);
}

// Byte-level spelling back to bytes; a code point outside the alphabet (odd vocabularies)
// stays as its own UTF-8.
std::string decode_byte_level(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    utf8::Lenient c = utf8::decode_lenient(text, i);
    if (auto byte = byte_level::decode(c.cpt)) {
      out.push_back(static_cast<char>(*byte));
    } else {
      out.append(text.substr(i, c.length));
    }
    i += c.length;
  }
  return out;
}

}  // namespace

struct Tokenizer::Impl {
  explicit Impl(const Vocab& vocab) : specials(vocab) {
    if (vocab.kind == VocabKind::kSpm) {
      spm.emplace(vocab);
    } else if (vocab.kind == VocabKind::kWpm) {
      wpm.emplace(vocab);
    } else if (vocab.kind == VocabKind::kUgm) {
      ugm.emplace(vocab);
    } else {
      if (vocab.pre_regexes.empty()) {
        pre.emplace(*find_pre_tokenizer(vocab.pre));  // the loader checked the name
      } else {
        pre.emplace(vocab.pre_regexes);
      }
      bpe.emplace(vocab);
    }
  }

  SpecialMatcher specials;
  std::optional<SpmEncoder> spm;
  std::optional<PreTokenizer> pre;
  std::optional<BpeEncoder> bpe;
  std::optional<WpmEncoder> wpm;
  std::optional<UgmEncoder> ugm;
};

Tokenizer Tokenizer::from_gguf(const gguf::File& file) {
  return Tokenizer(std::make_unique<Vocab>(load_vocab(file)));
}

Tokenizer::Tokenizer(std::unique_ptr<Vocab> vocab)
    : vocab_(std::move(vocab)), impl_(std::make_unique<Impl>(*vocab_)) {
  // The merge table now lives in the BPE encoder's interned form.
  std::vector<std::string>().swap(vocab_->merges);
}

Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

void Tokenizer::check_id(int32_t id) const {
  if (!vocab_->contains(id)) {
    throw Error("tokenizer: token id " + std::to_string(id) + " is outside the vocabulary (" +
                std::to_string(vocab_->size()) + " tokens)");
  }
}

std::string_view Tokenizer::token_text(int32_t id) const {
  check_id(id);
  return vocab_->text(id);
}

uint32_t Tokenizer::token_attr(int32_t id) const {
  check_id(id);
  return vocab_->attr(id);
}

bool Tokenizer::is_eog(int32_t id) const {
  return vocab_->contains(id) && vocab_->is_eog[static_cast<size_t>(id)];
}

std::vector<int32_t> Tokenizer::eog_ids() const {
  std::vector<int32_t> ids;
  for (int32_t t = 0; t < n_vocab(); ++t)
    if (is_eog(t)) ids.push_back(t);
  return ids;
}

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool add_special,
                                       bool parse_special) const {
  if (text.size() > kMaxTextBytes) {
    throw Error("tokenizer: text of " + std::to_string(text.size()) +
                " bytes is too long to tokenize (limit " + std::to_string(kMaxTextBytes) + ")");
  }
  std::vector<int32_t> out;
  out.reserve(text.size() / 3 + 2);
  if (add_special && vocab_->add_bos) out.push_back(vocab_->special.bos);
  bool after_special = true;  // the text start counts as following a special token
  for (const Fragment& f : impl_->specials.partition(text, parse_special)) {
    if (f.token != kNoToken) {
      out.push_back(f.token);
      after_special = true;
    } else {
      encode_raw(text.substr(f.begin, f.end - f.begin), after_special, out);
      after_special = false;
    }
  }
  if (add_special && vocab_->add_eos) out.push_back(vocab_->special.eos);
  return out;
}

void Tokenizer::encode_raw(std::string_view text, bool after_special,
                           std::vector<int32_t>& out) const {
  if (impl_->wpm) {
    impl_->wpm->encode(text, out);
    return;
  }
  if (impl_->ugm) {
    impl_->ugm->encode(text, out);
    return;
  }
  if (impl_->spm) {
    std::string escaped;
    if (vocab_->add_space_prefix && after_special) escaped = " ";
    escaped.append(text);
    replace_all(escaped, " ", kSpmSpace);
    impl_->spm->encode(escaped, out);
    return;
  }
  utf8::Normalized normalized = utf8::normalize_lenient(text);
  std::string word;
  for (auto [begin, end] : impl_->pre->split(normalized)) {
    word.clear();
    byte_level::encode(std::string_view(normalized.text).substr(begin, end - begin), word);
    impl_->bpe->encode_word(word, out);
  }
}

std::string Tokenizer::piece(int32_t id, bool skip_special) const {
  uint32_t attr = token_attr(id);
  std::string_view text = vocab_->text(id);
  if (attr & kAttrSpecial) return skip_special ? std::string() : std::string(text);
  if (attr & kAttrUserDefined) return std::string(text);
  if (attr & kAttrNormal) {
    if (vocab_->kind == VocabKind::kBpe) return decode_byte_level(text);
    std::string s(text);
    replace_all(s, kSpmSpace, " ");
    return s;
  }
  if (attr & kAttrByte) {  // spelled <0xHH>, checked at load
    return std::string(1, static_cast<char>(hex_digit(text[3]) << 4 | hex_digit(text[4])));
  }
  return {};  // unused and undefined tokens render as nothing, as in llama.cpp
}

std::string Tokenizer::decode(std::span<const int32_t> ids, bool skip_special) const {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) {
    std::string p = piece(ids[i], skip_special);
    if (i == 0 && vocab_->add_space_prefix && !p.empty() && p[0] == ' ') p.erase(0, 1);
    out += p;
  }
  return out;
}

std::string StreamDecoder::push(int32_t id) {
  pending_ += tokenizer_.piece(id, skip_special_);
  return take_complete(false);
}

std::string StreamDecoder::flush() { return take_complete(true); }

std::string StreamDecoder::take_complete(bool final) {
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  std::string out;
  size_t i = 0;
  while (i < pending_.size()) {
    utf8::Step step = utf8::next_strict(pending_, i);
    if (step.status == utf8::Status::kComplete) {
      out.append(pending_, i, step.length);
    } else if (step.status == utf8::Status::kInvalid || final) {
      out += kReplacement;
    } else {
      break;  // the start of a character whose remaining bytes may come with the next token
    }
    i += step.length;
  }
  pending_.erase(0, i);
  return out;
}

}  // namespace zen::tokenizer
