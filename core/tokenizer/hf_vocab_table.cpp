#include "tokenizer/hf_vocab_table.h"

#include <limits>

#include "gguf/text.h"

namespace zen::tokenizer::hf {

std::optional<int32_t> VocabTable::find(std::string_view text) const {
  auto it = index.find(std::string(text));
  if (it == index.end()) return std::nullopt;
  return it->second;
}

std::vector<std::pair<std::string, int64_t>> vocab_object_entries(const Node& vocab) {
  vocab.expect_object();
  std::vector<std::pair<std::string, int64_t>> out;
  out.reserve(vocab.size());
  for (auto it = vocab.json().begin(); it != vocab.json().end(); ++it) {
    Node id = vocab.at(it.key());
    out.emplace_back(it.key(), id.integer());
  }
  return out;
}

VocabTable build_vocab_table(std::vector<std::pair<std::string, int64_t>> model_entries,
                             const Node& where, const Node& root) {
  struct Entry {
    std::string text;
    int64_t id;
    bool added, special;
    std::string path;
  };
  std::vector<Entry> entries;
  entries.reserve(model_entries.size());
  for (auto& [text, id] : model_entries) {
    entries.push_back({std::move(text), id, false, false, where.path()});
  }
  if (auto added = root.find("added_tokens")) {
    added->expect_array();
    for (size_t i = 0; i < added->size(); ++i) {
      Node a = added->item(i);
      entries.push_back({a.at("content").str(), a.at("id").integer(), true,
                         a.bool_or("special", false), a.path()});
    }
  }
  if (entries.empty()) where.fail("the vocabulary is empty");

  // Ids index an array: any id beyond the entry count would leave a hole, so it is refused
  // before anything that large is allocated.
  const auto limit =
      static_cast<int64_t>(std::min<size_t>(entries.size(), std::numeric_limits<int32_t>::max()));
  std::vector<int32_t> owner(static_cast<size_t>(limit), -1);  // id -> entry
  for (size_t e = 0; e < entries.size(); ++e) {
    const Entry& x = entries[e];
    if (x.id < 0 || x.id >= limit) {
      Node(where.json(), std::make_shared<const std::string>(where.file()), x.path)
          .fail("token " + gguf::quote(x.text) + " has id " + std::to_string(x.id) +
                ", outside 0.." + std::to_string(limit - 1) + " (ids must be dense)");
    }
    int32_t& o = owner[static_cast<size_t>(x.id)];
    if (o >= 0) {
      const Entry& first = entries[static_cast<size_t>(o)];
      if (first.text != x.text) {
        Node(where.json(), std::make_shared<const std::string>(where.file()), x.path)
            .fail("id " + std::to_string(x.id) + " is given to both " + gguf::quote(first.text) +
                  " and " + gguf::quote(x.text));
      }
      // The same token listed by the model and in added_tokens: one token, added.
      if (x.added) o = static_cast<int32_t>(e);
      continue;
    }
    o = static_cast<int32_t>(e);
  }

  VocabTable t;
  size_t n = owner.size();
  while (n > 0 && owner[n - 1] < 0) --n;
  for (size_t id = 0; id < n; ++id) {
    if (owner[id] < 0) where.fail("no token has id " + std::to_string(id) + " (ids must be dense)");
  }
  t.tokens.resize(n);
  t.added.assign(n, 0);
  t.special.assign(n, 0);
  t.index.reserve(n);
  for (size_t id = 0; id < n; ++id) {
    const Entry& x = entries[static_cast<size_t>(owner[id])];
    t.tokens[id] = x.text;
    t.added[id] = x.added;
    t.special[id] = x.special;
    auto [it, fresh] = t.index.emplace(x.text, static_cast<int32_t>(id));
    if (!fresh) {
      Node(where.json(), std::make_shared<const std::string>(where.file()), x.path)
          .fail("token " + gguf::quote(x.text) + " has two ids, " + std::to_string(it->second) +
                " and " + std::to_string(id));
    }
  }
  return t;
}

// tokenizer_config.json's added_tokens_decoder ({"id": {"content": ...}}) must agree with
// tokenizer.json; its "special" flags count as well.
void apply_added_tokens_decoder(const std::optional<Node>& config, VocabTable& vocab) {
  if (!config) return;
  auto decoder = config->find("added_tokens_decoder");
  if (!decoder) return;
  decoder->expect_object();
  for (auto it = decoder->json().begin(); it != decoder->json().end(); ++it) {
    Node entry = decoder->at(it.key());
    size_t used = 0;
    long long id = -1;
    try {
      id = std::stoll(it.key(), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != it.key().size() || id < 0 || id >= vocab.size()) {
      entry.fail("id " + gguf::quote(it.key()) + " is not a token id of tokenizer.json (" +
                 std::to_string(vocab.size()) + " tokens)");
    }
    const std::string& content = entry.at("content").str();
    auto i = static_cast<size_t>(id);
    if (vocab.tokens[i] != content) {
      entry.fail("token " + it.key() + " is " + gguf::quote(content) + " here but " +
                 gguf::quote(vocab.tokens[i]) + " in tokenizer.json");
    }
    if (entry.bool_or("special", false)) vocab.special[i] = vocab.added[i] = 1;
  }
}

}  // namespace zen::tokenizer::hf
