#include "chat_template.h"

#include <fstream>
#include <sstream>

#include <zen/plugin.hpp>

#include "template/template.h"

namespace zen::serving {

std::string chat_template_source(const model::ModelFile& model, const std::string& file) {
  if (!file.empty()) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw Error(ZEN_ERR_IO, "cannot read chat template '" + file + "'");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  if (const gguf::Value* v = model.gguf().find("tokenizer.chat_template"); v && v->is_string())
    return std::string(v->as_string());
  if (auto t = tmpl::builtin_template(model.architecture())) return std::string(*t);
  return std::string(*tmpl::builtin_template("chatml"));
}

std::vector<int32_t> tokenize_chat(const tokenizer::Tokenizer& tok, const std::string& text) {
  std::vector<int32_t> ids = tok.encode(text, false, true);
  if (tok.add_bos() && tok.bos() >= 0 && (ids.empty() || ids.front() != tok.bos()))
    ids.insert(ids.begin(), tok.bos());
  return ids;
}

}  // namespace zen::serving
