#include "tokenizer/hf_json_node.h"

#include <fstream>
#include <sstream>

#include <zen/json_depth.hpp>

#include "tokenizer/error.h"

namespace zen::tokenizer::hf {

namespace {

constexpr uintmax_t kMaxDocumentBytes = uintmax_t{1} << 30;

std::string kind_of(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "an integer";
    case Json::value_t::number_float:
      return "a number";
    default:
      return "an unsupported value";
  }
}

std::string join(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

}  // namespace

void Node::fail(const std::string& what) const {
  throw Error("tokenizer: " + *file_ + ": " + (path_.empty() ? std::string("(root)") : path_) +
              ": " + what);
}

void Node::expect_object() const {
  if (!value_->is_object()) fail("expected an object, got " + kind_of(*value_));
}

void Node::expect_array() const {
  if (!value_->is_array()) fail("expected an array, got " + kind_of(*value_));
}

Node Node::at(std::string_view key) const {
  expect_object();
  auto it = value_->find(key);
  if (it == value_->end()) fail("missing member '" + std::string(key) + "'");
  return Node(*it, file_, join(path_, key));
}

std::optional<Node> Node::find(std::string_view key) const {
  expect_object();
  auto it = value_->find(key);
  if (it == value_->end() || it->is_null()) return std::nullopt;
  return Node(*it, file_, join(path_, key));
}

Node Node::item(size_t i) const {
  expect_array();
  if (i >= value_->size()) fail("index " + std::to_string(i) + " out of range");
  return Node((*value_)[i], file_, path_ + "[" + std::to_string(i) + "]");
}

const std::string& Node::str() const {
  if (!value_->is_string()) fail("expected a string, got " + kind_of(*value_));
  return value_->get_ref<const std::string&>();
}

bool Node::boolean() const {
  if (!value_->is_boolean()) fail("expected a boolean, got " + kind_of(*value_));
  return value_->get<bool>();
}

int64_t Node::integer() const {
  if (value_->is_number_unsigned()) {
    auto u = value_->get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) fail("integer " + std::to_string(u) + " too large");
    return static_cast<int64_t>(u);
  }
  if (!value_->is_number_integer()) fail("expected an integer, got " + kind_of(*value_));
  return value_->get<int64_t>();
}

double Node::number() const {
  if (!value_->is_number()) fail("expected a number, got " + kind_of(*value_));
  return value_->get<double>();
}

size_t Node::size() const {
  if (!value_->is_array() && !value_->is_object())
    fail("expected an array or object, got " + kind_of(*value_));
  return value_->size();
}

bool Node::bool_or(std::string_view key, bool fallback) const {
  auto n = find(key);
  return n ? n->boolean() : fallback;
}

std::string Node::string_or(std::string_view key, std::string_view fallback) const {
  auto n = find(key);
  return n ? n->str() : std::string(fallback);
}

int64_t Node::int_or(std::string_view key, int64_t fallback) const {
  auto n = find(key);
  return n ? n->integer() : fallback;
}

Document read_document(const std::filesystem::path& path) {
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxDocumentBytes)
    throw Error("tokenizer: " + path.string() + ": " + std::to_string(size) +
                " bytes, more than the 1 GiB a tokenizer file may have");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("tokenizer: cannot open " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof()) throw Error("tokenizer: cannot read " + path.string());
  try {
    return parse_document(text.str(), path.filename().string());
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + " (" + path.string() + ")");
  }
}

Document parse_document(const std::string& text, const std::string& name) {
  Document d;
  d.name = std::make_shared<const std::string>(name);
  if (zen::text::json_depth(text) > zen::text::kMaxJsonDepth)
    throw Error("tokenizer: " + name + ": JSON nests deeper than " +
                std::to_string(zen::text::kMaxJsonDepth) + " levels");
  try {
    d.root = std::make_shared<Json>(Json::parse(text));
  } catch (const Json::parse_error& e) {
    throw Error("tokenizer: " + name + ": invalid JSON at byte " + std::to_string(e.byte));
  } catch (const Json::exception& e) {  // a number too large for a double, ...
    throw Error("tokenizer: " + name + ": invalid JSON: " + e.what());
  }
  return d;
}

std::optional<std::string> token_name(const Node& n) {
  if (n.is_null()) return std::nullopt;
  if (n.is_string()) return n.str();
  if (n.is_object()) return n.at("content").str();
  n.fail("expected a token name (a string or an object with 'content')");
}

}  // namespace zen::tokenizer::hf
