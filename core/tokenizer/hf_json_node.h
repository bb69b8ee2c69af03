// Checked access to a parsed Hugging Face JSON file: a Node is a JSON value plus where it is
// (file name and JSON path, "tokenizer.json: model.vocab"), so every refusal names both.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace zen::tokenizer::hf {

using Json = nlohmann::json;

class Node {
 public:
  Node(const Json& value, std::shared_ptr<const std::string> file, std::string path)
      : value_(&value), file_(std::move(file)), path_(std::move(path)) {}

  const Json& json() const { return *value_; }
  const std::string& file() const { return *file_; }
  const std::string& path() const { return path_; }

  // A member that must be there / may be there (null counts as absent for find()).
  Node at(std::string_view key) const;
  std::optional<Node> find(std::string_view key) const;
  Node item(size_t i) const;  // array element

  bool is_null() const { return value_->is_null(); }
  bool is_object() const { return value_->is_object(); }
  bool is_array() const { return value_->is_array(); }
  bool is_string() const { return value_->is_string(); }

  const std::string& str() const;
  bool boolean() const;
  int64_t integer() const;
  double number() const;
  size_t size() const;  // array or object, else Error
  void expect_object() const;
  void expect_array() const;

  // Optional typed members with a default.
  bool bool_or(std::string_view key, bool fallback) const;
  std::string string_or(std::string_view key, std::string_view fallback) const;
  int64_t int_or(std::string_view key, int64_t fallback) const;

  [[noreturn]] void fail(const std::string& what) const;

 private:
  const Json* value_;
  std::shared_ptr<const std::string> file_;
  std::string path_;
};

// A parsed file and its root; the Node points into it, so keep the Document alive.
struct Document {
  std::shared_ptr<Json> root;
  std::shared_ptr<const std::string> name;
  Node node() const { return Node(*root, name, ""); }
};

// Parses path strictly; Error naming the file on a missing file, more than 1 GiB, invalid
// JSON or nesting deeper than zen::text::kMaxJsonDepth (a hostile file must not exhaust the
// stack of the recursive parser).
Document read_document(const std::filesystem::path& path);
// The same for text already read; `name` names it in messages.
Document parse_document(const std::string& text, const std::string& name);

// A "special token" entry as tokenizer_config.json / special_tokens_map.json write it: a
// string or an object with "content". nullopt for null; Error for anything else.
std::optional<std::string> token_name(const Node& n);

}  // namespace zen::tokenizer::hf
