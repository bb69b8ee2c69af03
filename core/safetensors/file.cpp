#include "safetensors/file.h"

#include <algorithm>
#include <cstring>
#include <set>

#include <nlohmann/json.hpp>
#include <zen/json_depth.hpp>

namespace zen::safetensors {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw Error(where + ": " + what);
}

// a * b, or nullopt when it does not fit 64 bits.
std::optional<uint64_t> times(uint64_t a, uint64_t b) {
  if (a != 0 && b > UINT64_MAX / a) return std::nullopt;
  return a * b;
}

uint64_t read_u64(const json& v, const std::string& where, const std::string& what) {
  if (!v.is_number_unsigned())
    fail(where, what + " must be a non-negative integer, got " + v.dump());
  return v.get<uint64_t>();
}

// The header as JSON: an object, bounded nesting, no name given twice (nlohmann would keep the
// last one silently).
json parse_header(std::string_view text, const std::string& where) {
  if (text::json_depth(text) > 4) fail(where, "the header nests deeper than 4 levels");
  std::set<std::string> names;
  std::string duplicate;
  auto on_key = [&](int depth, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::key && depth == 1 &&
        !names.insert(parsed.get<std::string>()).second && duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  json header = json::parse(text, on_key, /*allow_exceptions=*/false);
  if (header.is_discarded()) fail(where, "the header is not valid JSON");
  if (!header.is_object()) fail(where, "the header is not a JSON object");
  if (!duplicate.empty()) fail(where, "the header names '" + duplicate + "' twice");
  return header;
}

Tensor read_tensor(const std::string& name, const json& entry, const std::string& where,
                   const Limits& limits) {
  const std::string at = where + ": tensor '" + name + "'";
  if (name.empty() || name.size() > limits.max_name_bytes)
    throw Error(where + ": a tensor name is empty or longer than " +
                std::to_string(limits.max_name_bytes) + " bytes");
  if (!entry.is_object()) throw Error(at + " is not an object");
  for (const auto& [key, value] : entry.items())
    if (key != "dtype" && key != "shape" && key != "data_offsets")
      throw Error(at + ": unknown member '" + key + "'");
  Tensor t;
  t.name = name;
  const auto dtype = entry.find("dtype");
  if (dtype == entry.end() || !dtype->is_string()) throw Error(at + ": 'dtype' must be a string");
  const auto type = parse_dtype(dtype->get<std::string>());
  if (!type) throw Error(at + ": unknown dtype '" + dtype->get<std::string>() + "'");
  t.dtype = *type;
  const auto shape = entry.find("shape");
  if (shape == entry.end() || !shape->is_array()) throw Error(at + ": 'shape' must be an array");
  if (shape->size() > limits.max_rank)
    throw Error(at + ": rank " + std::to_string(shape->size()) + " is above " +
                std::to_string(limits.max_rank));
  t.n_elements = 1;
  for (const json& d : *shape) {
    t.shape.push_back(read_u64(d, at, "a 'shape' size"));
    const auto n = times(t.n_elements, t.shape.back());
    if (!n) throw Error(at + ": its shape overflows 64 bits");
    t.n_elements = *n;
  }
  return t;
}

}  // namespace

File File::parse(std::span<const uint8_t> bytes, const std::string& where, const Limits& limits) {
  if (bytes.size() < 8) fail(where, "shorter than the 8-byte header length");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = n << 8 | bytes[static_cast<size_t>(i)];
  if (n > limits.max_header_bytes)
    fail(where, "the header length " + std::to_string(n) + " is above the limit of " +
                    std::to_string(limits.max_header_bytes) + " bytes");
  if (n > bytes.size() - 8)
    fail(where, "the header length " + std::to_string(n) + " runs past the end of the file (" +
                    std::to_string(bytes.size()) + " bytes)");
  const std::string_view text(reinterpret_cast<const char*>(bytes.data() + 8), n);
  const json header = parse_header(text, where);
  const std::span<const uint8_t> data = bytes.subspan(8 + n);

  File f;
  struct Range {
    uint64_t begin, end;
    size_t tensor;
  };
  std::vector<Range> ranges;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object()) fail(where, "'__metadata__' is not an object");
      for (const auto& [key, value] : entry.items()) {
        if (!value.is_string()) fail(where, "'__metadata__." + key + "' is not a string");
        f.metadata_[key] = value.get<std::string>();
      }
      continue;
    }
    if (f.tensors_.size() >= limits.max_tensors)
      fail(where, "more than " + std::to_string(limits.max_tensors) + " tensors");
    Tensor t = read_tensor(name, entry, where, limits);
    const std::string at = where + ": tensor '" + name + "'";
    const auto offsets = entry.find("data_offsets");
    if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2)
      throw Error(at + ": 'data_offsets' must be [begin, end]");
    const uint64_t begin = read_u64((*offsets)[0], at, "'data_offsets'");
    const uint64_t end = read_u64((*offsets)[1], at, "'data_offsets'");
    const auto bytes_needed = times(t.n_elements, dtype_size(t.dtype));
    if (begin > end || end > data.size())
      throw Error(at + ": data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                  "] do not lie within the " + std::to_string(data.size()) + " data bytes");
    if (!bytes_needed || end - begin != *bytes_needed)
      throw Error(at + ": " + std::to_string(end - begin) + " bytes for " +
                  std::to_string(t.n_elements) + " elements of " + dtype_name(t.dtype));
    t.data = data.subspan(begin, end - begin);
    ranges.push_back({begin, end, f.tensors_.size()});
    f.index_.emplace(t.name, f.tensors_.size());
    f.tensors_.push_back(std::move(t));
  }
  // The tensors must tile the data: no overlap (two tensors sharing bytes) and no hole.
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t at = 0;
  for (const Range& r : ranges) {
    if (r.begin != at)
      fail(where, "tensor '" + f.tensors_[r.tensor].name + "' starts at data byte " +
                      std::to_string(r.begin) +
                      (r.begin < at ? ", inside the tensor before it"
                                    : ", leaving a hole after byte " + std::to_string(at)));
    at = r.end;
  }
  if (at != data.size())
    fail(where, std::to_string(data.size() - at) + " bytes after the last tensor belong to none");
  return f;
}

File File::open(const std::string& path, const Limits& limits) {
  std::shared_ptr<const gguf::MappedFile> map;
  try {
    map = std::make_shared<const gguf::MappedFile>(path);
  } catch (const std::exception& e) {
    throw Error(e.what());
  }
  File f = parse(map->bytes(), path, limits);
  f.map_ = std::move(map);
  return f;
}

const Tensor* File::find(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

}  // namespace zen::safetensors
