#include "tokenizer/bpe.h"

#include <algorithm>
#include <optional>

#include "tokenizer/merge_queue.h"
#include "tokenizer/utf8.h"

namespace zen::tokenizer {
namespace {

uint64_t key(int32_t left, int32_t right) {
  return static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32 | static_cast<uint32_t>(right);
}

}  // namespace

BpeEncoder::BpeEncoder(const Vocab& vocab) : vocab_(vocab) {
  merges_.reserve(vocab.merges.size());
  for (size_t rank = 0; rank < vocab.merges.size(); ++rank) {
    std::string_view m = vocab.merges[rank];
    size_t space = m.find(' ', 1);  // the loader checked there is one, not at the end
    std::string_view left = m.substr(0, space), right = m.substr(space + 1);
    int32_t l = intern(left), r = intern(right);
    int32_t merged = intern(std::string(left) + std::string(right));
    merges_.emplace(key(l, r), Merge{static_cast<int32_t>(rank), merged});
  }
  part_tokens_.resize(parts_.size());
  for (size_t i = 0; i < parts_.size(); ++i) {
    auto id = vocab.find(parts_[i]);
    part_tokens_[i] = id ? *id : kNoToken;
  }
}

int32_t BpeEncoder::intern(std::string_view part) {
  if (auto it = part_ids_.find(part); it != part_ids_.end()) return it->second;
  auto id = static_cast<int32_t>(parts_.size());
  parts_.emplace_back(part);
  part_ids_.emplace(parts_.back(), id);
  return id;
}

int32_t BpeEncoder::part_id(std::string_view part) const {
  auto it = part_ids_.find(part);
  return it == part_ids_.end() ? -1 : it->second;
}

void BpeEncoder::emit(std::string_view symbol, int32_t part, std::vector<int32_t>& out) const {
  std::optional<int32_t> id;
  if (part >= 0 && part_tokens_[static_cast<size_t>(part)] != kNoToken) {
    id = part_tokens_[static_cast<size_t>(part)];
  } else {
    id = vocab_.find(symbol);
  }
  if (id) {
    out.push_back(*id);
    return;
  }
  // Not a token: llama.cpp falls back to the symbol's single bytes that are tokens (in a
  // complete byte-level vocabulary every symbol is one, so this only matters for odd files).
  for (size_t i = 0; i < symbol.size(); ++i) {
    if (auto byte = vocab_.find(symbol.substr(i, 1))) out.push_back(*byte);
  }
}

void BpeEncoder::encode_word(std::string_view word, std::vector<int32_t>& out) const {
  if (word.empty()) return;
  if (vocab_.ignore_merges) {
    if (auto id = vocab_.find(word)) {
      out.push_back(*id);
      return;
    }
  }

  std::vector<MergeSymbol> symbols;
  std::vector<int32_t> parts;  // per symbol: interned id of its text, -1 if in no merge
  symbols.reserve(word.size() / 2 + 1);
  parts.reserve(word.size() / 2 + 1);
  for (size_t pos = 0; pos < word.size();) {
    size_t length = std::min(utf8::lead_length(static_cast<uint8_t>(word[pos])), word.size() - pos);
    auto index = static_cast<int32_t>(symbols.size());
    symbols.push_back({static_cast<uint32_t>(pos), static_cast<uint32_t>(length), index - 1,
                       pos + length == word.size() ? -1 : index + 1});
    parts.push_back(part_id(word.substr(pos, length)));
    pos += length;
  }

  // Per symbol, the listed merge with its right neighbour, kept current: a merge changes only
  // the pairs at the merged symbol and at its left neighbour.
  std::vector<const Merge*> pair_merge(symbols.size(), nullptr);
  MergeQueue queue;
  auto try_pair = [&](int32_t left) {
    if (left < 0) return;
    const MergeSymbol& l = symbols[static_cast<size_t>(left)];
    const Merge* m = nullptr;
    if (l.next >= 0) {
      int32_t lp = parts[static_cast<size_t>(left)], rp = parts[static_cast<size_t>(l.next)];
      if (lp >= 0 && rp >= 0) {
        auto it = merges_.find(key(lp, rp));
        if (it != merges_.end()) m = &it->second;
      }
    }
    pair_merge[static_cast<size_t>(left)] = m;
    if (m) queue.push(static_cast<uint32_t>(m->rank), static_cast<uint32_t>(left));
  };
  for (size_t i = 0; i + 1 < symbols.size(); ++i) try_pair(static_cast<int32_t>(i));

  while (!queue.empty()) {
    auto [rank, left] = queue.pop();
    MergeSymbol& l = symbols[left];
    const Merge* m = pair_merge[left];
    if (l.length == 0 || !m || static_cast<uint32_t>(m->rank) != rank) {
      continue;  // stale: the pair at `left` changed since this entry was queued
    }
    merge_with_next(symbols, left);
    parts[left] = m->merged;
    try_pair(l.prev);
    try_pair(static_cast<int32_t>(left));
  }

  for (int32_t i = 0; i >= 0; i = symbols[static_cast<size_t>(i)].next) {
    const MergeSymbol& s = symbols[static_cast<size_t>(i)];
    emit(word.substr(s.begin, s.length), parts[static_cast<size_t>(i)], out);
  }
}

}  // namespace zen::tokenizer
