#include "hf/config_keys.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "gguf/writer.h"

namespace zen::hf {
namespace {

using nlohmann::json;

const json* find_one(const json& root, std::string_view path) {
  const json* at = &root;
  while (!path.empty()) {
    const size_t dot = path.find('.');
    const std::string part(path.substr(0, dot));
    if (!at->is_object()) return nullptr;
    auto it = at->find(part);
    if (it == at->end()) return nullptr;
    at = &*it;
    path = dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1);
  }
  return at->is_null() ? nullptr : at;
}

[[noreturn]] void unfit(std::string_view path, const json& v, const char* want) {
  throw std::runtime_error("config.json: '" + std::string(path) + "' is " + v.dump() + ", not " +
                           want);
}

template <class T>
T integer(std::string_view path, const json& v, const char* want) {
  if (v.is_number_integer()) {
    if (v.is_number_unsigned()) {
      const uint64_t u = v.get<uint64_t>();
      if (u <= static_cast<uint64_t>(std::numeric_limits<T>::max())) return static_cast<T>(u);
    } else {
      const int64_t i = v.get<int64_t>();
      if (i >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
          i <= static_cast<int64_t>(std::numeric_limits<T>::max()))
        return static_cast<T>(i);
    }
  }
  unfit(path, v, want);
}

float number(std::string_view path, const json& v) {
  if (!v.is_number()) unfit(path, v, "a number");
  const double d = v.get<double>();
  if (!std::isfinite(d) || std::abs(d) > std::numeric_limits<float>::max())
    unfit(path, v, "a finite 32-bit float");
  return static_cast<float>(d);
}

// A value as the row's type; `equals` turns strings into 0/1.
gguf::Value convert(std::string_view path, const json& v, const zen_hf_key& row) {
  auto flag = [&](const json& e) -> uint32_t {
    if (!e.is_string()) unfit(path, e, "a string");
    return e.get<std::string>() == row.equals ? 1u : 0u;
  };
  switch (row.type) {
    case ZEN_HP_U32:
      return gguf::value_of(row.equals ? flag(v)
                                       : integer<uint32_t>(path, v,
                                                           "an unsigned "
                                                           "32-bit integer"));
    case ZEN_HP_I32:
      return gguf::value_of(integer<int32_t>(path, v, "a 32-bit integer"));
    case ZEN_HP_F32:
      return gguf::value_of(number(path, v));
    case ZEN_HP_BOOL:
      if (row.equals) return gguf::value_of(flag(v) != 0);
      if (!v.is_boolean()) unfit(path, v, "true or false");
      return gguf::value_of(v.get<bool>());
    case ZEN_HP_STRING:
      if (!v.is_string()) unfit(path, v, "a string");
      return gguf::value_of(v.get<std::string>());
    case ZEN_HP_ARRAY_U32: {
      if (!v.is_array()) unfit(path, v, "an array");
      std::vector<uint32_t> items;
      for (const json& e : v)
        items.push_back(row.equals ? flag(e) : integer<uint32_t>(path, e, "unsigned integers"));
      return gguf::array_of(std::span<const uint32_t>(items));
    }
    case ZEN_HP_ARRAY_F32: {
      if (!v.is_array()) unfit(path, v, "an array");
      std::vector<float> items;
      for (const json& e : v) items.push_back(number(path, e));
      return gguf::array_of(std::span<const float>(items));
    }
    default:
      throw std::runtime_error("the plugin's row for '" + std::string(row.gguf) +
                               "' has an unknown type " + std::to_string(row.type));
  }
}

}  // namespace

Found find_path(const json& root, std::string_view paths) {
  while (true) {
    const size_t bar = paths.find('|');
    const std::string_view path = paths.substr(0, bar);
    if (const json* v = find_one(root, path)) return {v, path};
    if (bar == std::string_view::npos) return {};
    paths = paths.substr(bar + 1);
  }
}

std::vector<gguf::KeyValue> hparams_from_config(const json& config, const zen_hf_map& map,
                                                const std::string& arch) {
  std::vector<gguf::KeyValue> out;
  for (uint32_t i = 0; i < map.n_keys; ++i) {
    const zen_hf_key& row = map.keys[i];
    if (!row.gguf || !row.hf) continue;
    std::string key = row.gguf;
    if (key.starts_with("{arch}")) key = arch + key.substr(6);
    const Found found = find_path(config, row.hf);
    if (!found.value) continue;
    gguf::Value value = convert(found.path, *found.value, row);
    bool replaced = false;
    for (gguf::KeyValue& kv : out)
      if (kv.key == key) {
        kv.value = std::move(value);
        replaced = true;
        break;
      }
    if (!replaced) out.push_back({std::move(key), std::move(value)});
  }
  return out;
}

}  // namespace zen::hf
