#include "tokenizer/ugm.h"

#include <algorithm>
#include <limits>

#include "tokenizer/unicode_data.h"
#include "tokenizer/utf8.h"

namespace zen::tokenizer {
namespace {

constexpr std::string_view kSpace = "\xE2\x96\x81";  // U+2581 "▁"
constexpr float kUnkPenalty = 10.0f;

}  // namespace

UgmEncoder::UgmEncoder(const Vocab& vocab) : vocab_(vocab), charsmap_(vocab.precompiled_charsmap) {
  float min_score = std::numeric_limits<float>::max();
  for (int32_t id = 0; id < vocab.size(); ++id) {
    min_score = std::min(min_score, vocab.score(id));
    max_token_bytes_ = std::max(max_token_bytes_, vocab.text(id).size());
  }
  unk_score_ = min_score - kUnkPenalty;
}

void UgmEncoder::normalize(std::string_view text, std::string& out) const {
  std::string mapped;
  if (!charsmap_.empty()) {
    charsmap_.normalize(text, mapped);
  } else {
    mapped.assign(text);
  }
  std::string_view s = mapped;
  if (vocab_.remove_extra_whitespaces) {
    // Strip trailing White_Space.
    size_t end = s.size();
    while (end > 0) {
      size_t start = end - 1;
      while (start > 0 && (static_cast<uint8_t>(s[start]) & 0xC0) == 0x80) --start;
      if (!unicode::is_white_space(utf8::decode_lenient(s, start).cpt)) break;
      end = start;
    }
    s = s.substr(0, end);
  }
  out.clear();
  out.reserve(s.size() + 8);
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != ' ') {
      out += s[i];
      continue;
    }
    out.append(kSpace);
    if (vocab_.remove_extra_whitespaces) {
      while (i + 1 < s.size() && s[i + 1] == ' ') ++i;  // a run of spaces is one "▁"
    }
  }
  if (vocab_.add_space_prefix && !out.empty() && !std::string_view(out).starts_with(kSpace)) {
    out.insert(0, kSpace);
  }
}

void UgmEncoder::encode(std::string_view text, std::vector<int32_t>& out) const {
  std::string normalized;
  normalize(text, normalized);
  std::string_view s = normalized;
  std::vector<Best> best;
  // Pieces start at every "▁" (Metaspace's split).
  size_t begin = 0;
  for (size_t i = 1; i <= s.size(); ++i) {
    if (i == s.size() || s.substr(i).starts_with(kSpace)) {
      viterbi(s.substr(begin, i - begin), best, out);
      begin = i;
    }
  }
}

void UgmEncoder::viterbi(std::string_view piece, std::vector<Best>& best,
                         std::vector<int32_t>& out) const {
  if (piece.empty()) return;
  const size_t n = piece.size();
  best.assign(n + 1, Best{});
  best[0].start = 0;
  for (size_t start = 0; start < n;) {
    size_t char_len = std::min(utf8::lead_length(static_cast<uint8_t>(piece[start])), n - start);
    if (best[start].start < 0) {
      start += char_len;
      continue;
    }
    float base = best[start].score;
    bool single = false;
    // Every token that starts here, shortest first, at character boundaries.
    for (size_t end = start + char_len; end <= n && end - start <= max_token_bytes_;) {
      if (auto id = vocab_.find(piece.substr(start, end - start))) {
        float candidate = base + vocab_.score(*id);
        Best& b = best[end];
        if (b.start < 0 || candidate > b.score) b = {candidate, *id, static_cast<int32_t>(start)};
        if (end - start == char_len) single = true;
      }
      if (end == n) break;
      end += std::min(utf8::lead_length(static_cast<uint8_t>(piece[end])), n - end);
    }
    if (!single) {
      float candidate = base + unk_score_;
      Best& b = best[start + char_len];
      if (b.start < 0 || candidate > b.score) {
        b = {candidate, vocab_.special.unk, static_cast<int32_t>(start)};
      }
    }
    start += char_len;
  }
  // Back from the end; consecutive UNKs become one.
  const size_t first = out.size();
  for (size_t end = n; end > 0;) {
    const Best& b = best[end];
    bool unk = b.id == vocab_.special.unk;
    if (!(unk && out.size() > first && out.back() == vocab_.special.unk)) out.push_back(b.id);
    end = static_cast<size_t>(b.start);
  }
  std::reverse(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
  if (vocab_.special.unk == kNoToken) {
    out.erase(std::remove(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), kNoToken),
              out.end());
  }
}

}  // namespace zen::tokenizer
