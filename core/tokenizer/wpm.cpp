#include "tokenizer/wpm.h"

#include "tokenizer/unicode_data.h"
#include "tokenizer/utf8.h"

namespace zen::tokenizer {
namespace {

constexpr std::string_view kWordStart = "\xE2\x96\x81";  // U+2581 "▁"

bool is_cjk(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool is_bert_punctuation(char32_t c) {
  if (c < 0x80) {
    return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
           (c >= 0x7B && c <= 0x7E);
  }
  return (unicode::flags(c) & unicode::kPunctuation) != 0;
}

void append_utf8(char32_t c, std::string& s) { utf8::append(s, static_cast<uint32_t>(c)); }

}  // namespace

void WpmEncoder::normalize(std::string_view text, std::vector<char32_t>& cps) const {
  const WordPieceOptions& o = vocab_.wordpiece;
  cps.clear();
  cps.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    utf8::Lenient c = utf8::decode_lenient(text, i);
    i += c.length;
    char32_t cp = c.cpt;
    if (o.clean_text) {
      bool ws = unicode::is_white_space(cp);
      if (cp == 0 || cp == 0xFFFD || (!ws && (unicode::flags(cp) & unicode::kOther))) continue;
      if (ws) cp = ' ';
    }
    if (o.handle_chinese_chars && is_cjk(cp)) {
      cps.push_back(' ');
      cps.push_back(cp);
      cps.push_back(' ');
    } else {
      cps.push_back(cp);
    }
  }
  std::vector<char32_t> scratch;
  if (o.strip_accents) {
    unicode::nfd(cps, scratch);
    size_t kept = 0;
    for (char32_t cp : cps) {
      if (!(unicode::flags(cp) & unicode::kNonspacingMark)) cps[kept++] = cp;
    }
    cps.resize(kept);
  }
  if (o.lowercase) {
    scratch.clear();
    scratch.reserve(cps.size());
    for (char32_t cp : cps) unicode::append_lower(cp, scratch);
    cps.swap(scratch);
  }
}

void WpmEncoder::encode(std::string_view text, std::vector<int32_t>& out) const {
  std::vector<char32_t> cps;
  normalize(text, cps);
  std::string buffer;
  std::vector<uint32_t> ends;
  size_t word = 0;  // start of the current word
  for (size_t i = 0; i <= cps.size(); ++i) {
    bool end = i == cps.size();
    bool space = !end && unicode::is_white_space(cps[i]);
    bool punct = !end && !space && is_bert_punctuation(cps[i]);
    if (!end && !space && !punct) continue;
    if (i > word) encode_word(cps.data() + word, i - word, buffer, ends, out);
    if (punct) encode_word(cps.data() + i, 1, buffer, ends, out);
    word = i + 1;
  }
}

void WpmEncoder::encode_word(const char32_t* word, size_t n, std::string& buffer,
                             std::vector<uint32_t>& ends, std::vector<int32_t>& out) const {
  if (n > vocab_.wordpiece.max_word_chars) {
    if (vocab_.special.unk != kNoToken) out.push_back(vocab_.special.unk);
    return;
  }
  // "▁" + the word in UTF-8; ends[k] = byte end of character k.
  buffer.assign(kWordStart);
  ends.clear();
  for (size_t k = 0; k < n; ++k) {
    append_utf8(word[k], buffer);
    ends.push_back(static_cast<uint32_t>(buffer.size()));
  }
  const size_t first = out.size();
  std::string_view text(buffer);
  size_t start = 0;  // character index
  while (start < n) {
    // A word-initial piece keeps the "▁"; a continuation starts after the previous piece.
    size_t begin = start == 0 ? 0 : ends[start - 1];
    int32_t match = kNoToken;
    size_t stop = n;
    for (; stop > start; --stop) {
      if (auto id = vocab_.find(text.substr(begin, ends[stop - 1] - begin))) {
        match = *id;
        break;
      }
    }
    if (match == kNoToken) {
      out.resize(first);
      if (vocab_.special.unk != kNoToken) out.push_back(vocab_.special.unk);
      return;
    }
    out.push_back(match);
    start = stop;
  }
}

}  // namespace zen::tokenizer
