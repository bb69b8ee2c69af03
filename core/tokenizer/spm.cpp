#include "tokenizer/spm.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "tokenizer/merge_queue.h"
#include "tokenizer/utf8.h"

namespace zen::tokenizer {

SpmEncoder::SpmEncoder(const Vocab& vocab) : vocab_(vocab) {
  for (int b = 0; b < 256; ++b) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "<0x%02X>", b);
    const char raw = static_cast<char>(b);
    auto id = vocab.find(hex);
    if (!id) id = vocab.find(std::string_view(&raw, 1));
    byte_tokens_[static_cast<size_t>(b)] = id ? *id : vocab.special.unk;
  }
}

void SpmEncoder::encode(std::string_view text, std::vector<int32_t>& out) const {
  if (text.empty()) return;
  std::vector<MergeSymbol> symbols;
  symbols.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    size_t length = std::min(utf8::lead_length(static_cast<uint8_t>(text[pos])), text.size() - pos);
    auto index = static_cast<int32_t>(symbols.size());
    symbols.push_back({static_cast<uint32_t>(pos), static_cast<uint32_t>(length), index - 1,
                       pos + length == text.size() ? -1 : index + 1});
    pos += length;
  }

  // Per symbol, the token it and its right neighbour would merge into, kept current: a merge
  // changes only the pairs at the merged symbol and at its left neighbour.
  std::vector<int32_t> pair_token(symbols.size(), kNoToken);
  MergeQueue queue;
  auto try_pair = [&](int32_t left) {
    if (left < 0) return;
    const MergeSymbol& l = symbols[static_cast<size_t>(left)];
    std::optional<int32_t> id;
    if (l.next >= 0) {
      id =
          vocab_.find(text.substr(l.begin, l.length + symbols[static_cast<size_t>(l.next)].length));
    }
    pair_token[static_cast<size_t>(left)] = id ? *id : kNoToken;
    if (id) queue.push(MergeQueue::descending(vocab_.score(*id)), static_cast<uint32_t>(left));
  };
  for (size_t i = 0; i + 1 < symbols.size(); ++i) try_pair(static_cast<int32_t>(i));

  while (!queue.empty()) {
    auto [priority, left] = queue.pop();
    MergeSymbol& l = symbols[left];
    int32_t id = pair_token[left];
    if (l.length == 0 || id == kNoToken || MergeQueue::descending(vocab_.score(id)) != priority) {
      continue;  // stale: the pair at `left` changed since this entry was queued
    }
    merge_with_next(symbols, left);
    try_pair(l.prev);
    try_pair(static_cast<int32_t>(left));
  }

  for (int32_t i = 0; i >= 0; i = symbols[static_cast<size_t>(i)].next) {
    const MergeSymbol& s = symbols[static_cast<size_t>(i)];
    std::string_view piece = text.substr(s.begin, s.length);
    if (auto id = vocab_.find(piece)) {
      out.push_back(*id);
      continue;
    }
    for (char c : piece) {
      int32_t id = byte_tokens_[static_cast<uint8_t>(c)];
      if (id != kNoToken) out.push_back(id);
    }
  }
}

}  // namespace zen::tokenizer
