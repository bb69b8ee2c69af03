#include "gguf/gguf_describe.h"

#include <charconv>
#include <cmath>
#include <iomanip>
#include <string>

#include "gguf/tensor_info.h"
#include "gguf/text.h"
#include "types/type_traits.h"

namespace zen::gguf {

namespace {

constexpr size_t kJsonArrayFull = 16;    // arrays up to this length are shown whole
constexpr size_t kJsonArrayPreview = 8;  // longer ones show this many leading elements
constexpr size_t kTextArrayPreview = 6;
constexpr size_t kTextStringBytes = 60;

std::string_view tensor_type_name(zen_type t) {
  const TypeTraits* traits = type_traits(static_cast<uint32_t>(t));
  return traits ? traits->name : "?";
}

nlohmann::json scalar_json(const Value& v) {
  switch (v.type()) {
    case ValueType::F32:
      return v.as_f32();
    case ValueType::F64:
      return v.as_f64();
    case ValueType::BOOL:
      return v.as_bool();
    case ValueType::STRING:
      return to_valid_utf8(v.as_string());
    case ValueType::I8:
    case ValueType::I16:
    case ValueType::I32:
    case ValueType::I64:
      return v.as_int<int64_t>();
    default:
      return v.as_int<uint64_t>();
  }
}

// Fills "value" (and for arrays "length"/"truncated") into `out`.
void value_json(const Value& v, nlohmann::json& out) {
  if (!v.is_array()) {
    out["value"] = scalar_json(v);
    return;
  }
  const Array& a = v.as_array();
  size_t shown = a.size() <= kJsonArrayFull ? a.size() : kJsonArrayPreview;
  nlohmann::json items = nlohmann::json::array();
  for (size_t i = 0; i < shown; ++i) {
    Value e = a.element(i);
    if (e.is_array()) {
      nlohmann::json nested{{"type", e.type_name()}};
      value_json(e, nested);
      items.push_back(std::move(nested));
    } else {
      items.push_back(scalar_json(e));
    }
  }
  out["length"] = a.size();
  out["value"] = std::move(items);
  if (shown < a.size()) out["truncated"] = true;
}

std::string number_text(double x, bool is_f32) {
  char buf[64];
  auto r = is_f32 ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(x))
                  : std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

std::string scalar_text(const Value& v) {
  switch (v.type()) {
    case ValueType::F32:
      return number_text(v.as_f32(), true);
    case ValueType::F64:
      return number_text(v.as_f64(), false);
    case ValueType::BOOL:
      return v.as_bool() ? "true" : "false";
    case ValueType::STRING:
      return quote(v.as_string(), kTextStringBytes);
    case ValueType::I8:
    case ValueType::I16:
    case ValueType::I32:
    case ValueType::I64:
      return std::to_string(v.as_int<int64_t>());
    default:
      return std::to_string(v.as_int<uint64_t>());
  }
}

std::string value_text(const Value& v) {
  if (!v.is_array()) return scalar_text(v);
  const Array& a = v.as_array();
  std::string s = "[";
  for (size_t i = 0; i < a.size() && i < kTextArrayPreview; ++i) {
    if (i) s += ", ";
    s += value_text(a.element(i));
  }
  if (a.size() > kTextArrayPreview) s += ", ...";
  return s + "]";
}

std::string type_text(const Value& v) {
  if (!v.is_array()) return v.type_name();
  return "[" + type_name(v.as_array().element_type()) + "; " + std::to_string(v.as_array().size()) +
         "]";
}

}  // namespace

nlohmann::json describe_json(const File& file) {
  nlohmann::json j;
  j["version"] = file.version();
  j["file_size"] = file.file_size();
  j["alignment"] = file.alignment();
  j["data_offset"] = file.data_offset();
  nlohmann::json meta = nlohmann::json::array();
  for (const auto& [key, value] : file.metadata()) {
    nlohmann::json e{{"key", to_valid_utf8(key)}, {"type", value.type_name()}};
    value_json(value, e);
    meta.push_back(std::move(e));
  }
  j["metadata"] = std::move(meta);
  nlohmann::json tensors = nlohmann::json::array();
  for (const TensorInfo& t : file.tensors()) {
    tensors.push_back({{"name", to_valid_utf8(t.name)},
                       {"type", tensor_type_name(t.type)},
                       {"shape", std::vector<uint64_t>(t.dims().begin(), t.dims().end())},
                       {"elements", t.n_elements},
                       {"offset", t.offset},
                       {"file_offset", t.file_offset},
                       {"size", t.n_bytes}});
  }
  j["tensors"] = std::move(tensors);
  return j;
}

void describe_text(const File& file, std::ostream& out) {
  out << "GGUF v" << file.version() << ": " << file.file_size() << " bytes, alignment "
      << file.alignment() << ", data at offset " << file.data_offset() << "\n";
  out << "metadata: " << file.metadata().size() << " keys\n";
  size_t i = 0;
  for (const auto& [key, value] : file.metadata()) {
    out << std::setw(6) << ++i << ": " << std::left << std::setw(17) << type_text(value) << ' '
        << std::right << escape(key) << " = " << value_text(value) << "\n";
  }
  out << "tensors: " << file.tensors().size() << "\n";
  if (file.tensors().empty()) return;
  size_t name_width = 4;
  for (const TensorInfo& t : file.tensors())
    name_width = std::max(name_width, escape(t.name).size());
  out << std::setw(6) << "#"
      << "  " << std::left << std::setw(static_cast<int>(name_width)) << "name"
      << "  " << std::setw(8) << "type" << std::setw(28) << "shape" << std::right << std::setw(14)
      << "file_offset" << std::setw(14) << "size"
      << "\n";
  i = 0;
  for (const TensorInfo& t : file.tensors()) {
    out << std::setw(6) << i++ << "  " << std::left << std::setw(static_cast<int>(name_width))
        << escape(t.name) << "  " << std::setw(8) << tensor_type_name(t.type) << std::setw(28)
        << shape_string(t) << std::right << std::setw(14) << t.file_offset << std::setw(14)
        << t.n_bytes << "\n";
  }
}

}  // namespace zen::gguf
