#include "tokenizer/vocab.h"

#include <functional>

#include "gguf/text.h"
#include "tokenizer/error.h"

namespace zen::tokenizer {

void Vocab::reserve(size_t n_tokens, size_t text_bytes) {
  blob_.reserve(text_bytes);
  ends_.reserve(n_tokens);
  scores_.reserve(n_tokens);
  attrs_.reserve(n_tokens);
}

void Vocab::add(std::string_view text, float score, uint32_t attr) {
  blob_.insert(blob_.end(), text.begin(), text.end());
  ends_.push_back(blob_.size());
  scores_.push_back(score);
  attrs_.push_back(attr);
}

uint64_t Vocab::hash(std::string_view text) { return std::hash<std::string_view>{}(text); }

void Vocab::finish() {
  size_t capacity = 16;
  while (capacity < ends_.size() * 2) capacity *= 2;
  slots_.assign(capacity, Slot{});
  size_t mask = capacity - 1;
  for (int32_t id = 0; id < size(); ++id) {
    std::string_view t = text(id);
    uint64_t h = hash(t);
    auto tag = static_cast<uint32_t>(h >> 32);
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.id == kNoToken) {
        slot = {tag, id};
        break;
      }
      if (slot.tag == tag && text(slot.id) == t) {
        // llama.cpp refuses such a vocabulary too: a text must name one token.
        throw Error("tokenizer: tokens " + std::to_string(slot.id) + " and " + std::to_string(id) +
                    " have the same text " + gguf::quote(t));
      }
    }
  }
}

std::string_view Vocab::text(int32_t id) const {
  size_t i = static_cast<size_t>(id);
  size_t begin = i == 0 ? 0 : ends_[i - 1];
  return std::string_view(blob_.data() + begin, ends_[i] - begin);
}

std::optional<int32_t> Vocab::find(std::string_view t) const {
  if (slots_.empty()) return std::nullopt;
  uint64_t h = hash(t);
  auto tag = static_cast<uint32_t>(h >> 32);
  size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (slot.id == kNoToken) return std::nullopt;
    if (slot.tag == tag && text(slot.id) == t) return slot.id;
  }
}

}  // namespace zen::tokenizer
