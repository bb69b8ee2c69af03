#include "ordered_parse.h"

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace zen::frontend {
namespace {

// nlohmann's SAX interface, building the value bottom-up on a stack of the open containers.
class Builder {
 public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  bool null() { return put(Json(nullptr)) != nullptr; }
  bool boolean(bool v) { return put(Json(v)) != nullptr; }
  bool number_integer(number_integer_t v) { return put(Json(v)) != nullptr; }
  bool number_unsigned(number_unsigned_t v) { return put(Json(v)) != nullptr; }
  bool number_float(number_float_t v, const string_t&) { return put(Json(v)) != nullptr; }
  bool string(string_t& v) { return put(Json(std::move(v))) != nullptr; }
  bool binary(binary_t& v) { return put(Json::binary(std::move(v))) != nullptr; }
  bool start_object(std::size_t) { return open(Json::object()); }
  bool key(string_t& k) {
    key_ = std::move(k);
    return true;
  }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return open(Json::array()); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
    return false;
  }

  Json take() { return std::move(root_); }

 private:
  struct Open {
    Json* value;
    std::unordered_map<std::string, size_t> keys;  // objects: each key's place
  };

  // Adds v where the parser is (the root, an array's end, or the current key); returns it.
  // Pointers to open containers stay valid: nothing is added to a parent while a child is open.
  Json* put(Json v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Open& top = stack_.back();
    if (top.value->is_array()) {
      auto& array = top.value->get_ref<Json::array_t&>();
      array.push_back(std::move(v));
      return &array.back();
    }
    // The vector underneath ordered_map, past its own linear duplicate check.
    auto& pairs = static_cast<Json::object_t::Container&>(top.value->get_ref<Json::object_t&>());
    auto [it, fresh] = top.keys.try_emplace(key_, pairs.size());
    if (!fresh) {
      pairs[it->second].second = std::move(v);
      return &pairs[it->second].second;
    }
    pairs.emplace_back(std::move(key_), std::move(v));
    return &pairs.back().second;
  }

  bool open(Json container) {
    Json* v = put(std::move(container));
    stack_.push_back(Open{v, {}});
    return true;
  }

  bool close() {
    if (stack_.empty()) return false;
    stack_.pop_back();
    return true;
  }

  Json root_;
  std::vector<Open> stack_;
  std::string key_;
};

}  // namespace

std::optional<Json> parse_ordered(std::string_view text) {
  Builder builder;
  if (!Json::sax_parse(text.begin(), text.end(), &builder)) return std::nullopt;
  return builder.take();
}

}  // namespace zen::frontend
