#include "tokenizer/hf_specials.h"

#include <string>

#include "gguf/text.h"
#include "gguf/writer.h"
#include "tokenizer/error.h"

namespace zen::tokenizer::hf {
namespace {

struct Name {
  std::string text;
  std::string where;  // "tokenizer_config.json: bos_token"
  std::optional<Node> node;
};

std::optional<Name> name_of(std::string_view role, const std::optional<Node>& config,
                            const std::optional<Node>& map) {
  std::string key = std::string(role) + "_token";
  for (const auto* source : {&config, &map}) {
    if (!*source) continue;
    if (auto n = (*source)->find(key)) {
      if (auto text = token_name(*n)) return Name{*text, n->file() + ": " + n->path(), n};
    }
  }
  return std::nullopt;
}

// The first and last special tokens the post-processor puts around a single sequence.
struct Template {
  std::optional<std::string> first, last;
};

void read_processor(const Node& p, Template& t) {
  std::string type = p.at("type").str();
  if (type == "Sequence") {
    Node list = p.at("processors");
    for (size_t i = 0; i < list.size(); ++i) read_processor(list.item(i), t);
  } else if (type == "TemplateProcessing") {
    Node single = p.at("single");
    single.expect_array();
    if (single.size() < 2) return;  // only $A: nothing added
    auto special = [](const Node& piece) -> std::optional<std::string> {
      if (auto s = piece.find("SpecialToken")) return s->at("id").str();
      return std::nullopt;
    };
    t.first = special(single.item(0));
    t.last = special(single.item(single.size() - 1));
  } else if (type == "BertProcessing" || type == "RobertaProcessing") {
    t.first = p.at("cls").item(0).str();
    t.last = p.at("sep").item(0).str();
  } else if (type != "ByteLevel") {
    p.at("type").fail("post-processor " + gguf::quote(type) +
                      " is not supported (supported: TemplateProcessing, BertProcessing, "
                      "RobertaProcessing, ByteLevel, Sequence)");
  }
}

int32_t lookup(const VocabTable& vocab, const std::string& text, const std::string& where) {
  auto id = vocab.find(text);
  if (!id)
    throw Error("tokenizer: " + where + ": token " + gguf::quote(text) +
                " is not in the vocabulary");
  return *id;
}

std::optional<int32_t> lookup(const VocabTable& vocab, const std::optional<Name>& name) {
  if (!name) return std::nullopt;
  return lookup(vocab, name->text, name->where);
}

}  // namespace

SpecialTokens read_special_tokens(const Node& root, const std::optional<Node>& config,
                                  const std::optional<Node>& map, const VocabTable& vocab,
                                  std::optional<int32_t> unk) {
  std::optional<Name> bos = name_of("bos", config, map), eos = name_of("eos", config, map);
  std::optional<Name> cls = name_of("cls", config, map), sep = name_of("sep", config, map);
  if (!bos) bos = cls;
  if (!eos) eos = sep;

  SpecialTokens s;
  Template t;
  if (auto p = root.find("post_processor")) read_processor(*p, t);
  std::string pp_where = root.file() + ": post_processor";
  if (t.first) {
    if (!bos) bos = Name{*t.first, pp_where, std::nullopt};
    if (*t.first != bos->text) {
      throw Error("tokenizer: " + pp_where + ": the post-processor adds " + gguf::quote(*t.first) +
                  " first, but the BOS token is " + gguf::quote(bos->text) + " (" + bos->where +
                  ")");
    }
    s.add_bos = true;
  }
  if (t.last) {
    if (!eos) eos = Name{*t.last, pp_where, std::nullopt};
    if (*t.last != eos->text) {
      throw Error("tokenizer: " + pp_where + ": the post-processor adds " + gguf::quote(*t.last) +
                  " last, but the EOS token is " + gguf::quote(eos->text) + " (" + eos->where +
                  ")");
    }
    s.add_eos = true;
  }
  if (config) {
    s.add_bos = config->bool_or("add_bos_token", s.add_bos);
    s.add_eos = config->bool_or("add_eos_token", s.add_eos);
  }

  s.bos = lookup(vocab, bos);
  s.eos = lookup(vocab, eos);
  s.unk = unk ? unk : lookup(vocab, name_of("unk", config, map));
  s.pad = lookup(vocab, name_of("pad", config, map));
  s.sep = lookup(vocab, sep);
  s.mask = lookup(vocab, name_of("mask", config, map));
  return s;
}

void append_special_metadata(const SpecialTokens& s, std::vector<gguf::KeyValue>& kv) {
  auto id = [&](const char* key, const std::optional<int32_t>& v) {
    if (v) kv.push_back({key, gguf::value_of(static_cast<uint32_t>(*v))});
  };
  id("tokenizer.ggml.bos_token_id", s.bos);
  id("tokenizer.ggml.eos_token_id", s.eos);
  id("tokenizer.ggml.unknown_token_id", s.unk);
  id("tokenizer.ggml.seperator_token_id", s.sep);
  id("tokenizer.ggml.padding_token_id", s.pad);
  id("tokenizer.ggml.mask_token_id", s.mask);
  kv.push_back({"tokenizer.ggml.add_bos_token", gguf::value_of(s.add_bos)});
  kv.push_back({"tokenizer.ggml.add_eos_token", gguf::value_of(s.add_eos)});
}

}  // namespace zen::tokenizer::hf
