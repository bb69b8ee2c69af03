#include "tokenizer/hf_json.h"

#include "gguf/text.h"
#include "gguf/writer.h"
#include "tokenizer/error.h"
#include "tokenizer/hf_json_node.h"
#include "tokenizer/hf_models.h"
#include "tokenizer/hf_specials.h"

namespace zen::tokenizer {
namespace {

using hf::Node;

std::optional<hf::Document> read_optional(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  return hf::read_document(path);
}

std::vector<gguf::KeyValue> convert(const hf::Document& tokenizer,
                                    const std::optional<hf::Document>& config,
                                    const std::optional<hf::Document>& map) {
  Node root = tokenizer.node();
  root.expect_object();
  Node model = root.at("model");
  model.expect_object();
  // Older files leave out "type" for BPE.
  std::string type = model.find("type") ? model.at("type").str() : "BPE";

  std::optional<Node> config_node, map_node;
  if (config) config_node = config->node(), config_node->expect_object();
  if (map) map_node = map->node(), map_node->expect_object();

  hf::ModelMetadata m;
  if (type == "BPE") {
    m = hf::convert_bpe(root, config_node);
  } else if (type == "WordPiece") {
    m = hf::convert_wordpiece(root, config_node);
  } else if (type == "Unigram") {
    m = hf::convert_unigram(root, config_node);
  } else {
    model.at("type").fail("model type " + gguf::quote(type) +
                          " is not supported (supported: BPE, WordPiece, Unigram)");
  }

  hf::SpecialTokens s = hf::read_special_tokens(root, config_node, map_node, m.vocab, m.unk);
  std::vector<gguf::KeyValue> kv = std::move(m.kv);
  hf::append_special_metadata(s, kv);
  kv.push_back({"tokenizer.zen.source", gguf::value_of("tokenizer.json")});
  return kv;
}

}  // namespace

std::vector<gguf::KeyValue> gguf_metadata_from_hf(const std::filesystem::path& dir) {
  try {
    return convert(hf::read_document(dir / "tokenizer.json"),
                   read_optional(dir / "tokenizer_config.json"),
                   read_optional(dir / "special_tokens_map.json"));
  } catch (const gguf::Error& e) {
    throw Error(std::string("tokenizer: ") + (dir / "tokenizer.json").string() + ": " + e.what());
  }
}

std::vector<gguf::KeyValue> gguf_metadata_from_tokenizer_json(const std::string& text) {
  try {
    return convert(hf::parse_document(text, "tokenizer.json"), std::nullopt, std::nullopt);
  } catch (const gguf::Error& e) {
    throw Error(std::string("tokenizer: tokenizer.json: ") + e.what());
  }
}

}  // namespace zen::tokenizer
