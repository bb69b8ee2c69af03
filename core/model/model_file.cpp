#include "model/model_file.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <zen/plugin.hpp>

#include "hf/directory.h"

namespace zen::model {

ModelFile::ModelFile(const std::string& path) : ModelFile(path, gguf::File::open(path)) {}

ModelFile::ModelFile(std::string path, gguf::File file)
    : path_(std::move(path)), file_(std::move(file)) {
  arch_ = std::string(file_.get_string("general.architecture"));
}

namespace {

// A GGUF quantized as it loads: its metadata and tensors placed again (quant/in_situ.h).
gguf::File quantize_gguf(const std::string& path, const quant::InSituOptions& isq) {
  auto file = std::make_shared<const gguf::File>(gguf::File::open(path));
  std::vector<quant::SourceTensor> sources;
  for (const gguf::TensorInfo& t : file->tensors()) sources.push_back({t, {}});
  return quant::assemble_placed(std::move(sources), file->metadata(), &isq, file, path);
}

}  // namespace

std::shared_ptr<const ModelFile> ModelFile::open(const std::string& path,
                                                 std::span<const ArchPlugin> archs,
                                                 const quant::InSituOptions* isq) {
  if (!hf::is_model_directory(path))
    return isq ? std::make_shared<const ModelFile>(path, quantize_gguf(path, *isq))
               : std::make_shared<const ModelFile>(path);
  const hf::Directory dir(path);
  const std::vector<std::string> classes = dir.class_names();
  std::string known;
  for (const ArchPlugin& a : archs) {
    if (!ZEN_HAS_MEMBER(a.table, zen_arch_v1, hf) || !a.table->hf) continue;
    for (uint32_t i = 0; i < a.table->n_names; ++i) {
      known += (known.empty() ? "" : ", ") + std::string(a.table->names[i]);
      if (std::find(classes.begin(), classes.end(), a.table->names[i]) != classes.end())
        return std::make_shared<const ModelFile>(
            path, dir.assemble(a.table->names[0], *a.table->hf, isq));
    }
  }
  std::string named;
  for (const std::string& c : classes) named += (named.empty() ? "'" : ", '") + c + "'";
  throw Error(ZEN_ERR_UNSUPPORTED,
              path + ": no architecture plugin loads Hugging Face " +
                  (named.empty() ? "models without \"architectures\"" : named) +
                  " (plugins that load Hugging Face directories answer to: " +
                  (known.empty() ? "none" : known) + ")");
}

std::string ModelFile::key(std::string_view k) const {
  constexpr std::string_view kArch = "{arch}";
  if (k.starts_with(kArch)) return arch_ + std::string(k.substr(kArch.size()));
  return std::string(k);
}

namespace {

// Every lookup answers "absent" (0) instead of throwing: the C boundary has no exceptions and
// the plugin decides whether a missing key is an error.
const gguf::Value* find(const zen_model* m, const char* key) {
  if (!m || !key) return nullptr;
  const ModelFile& f = ModelFile::from(m);
  return f.gguf().find(f.key(key));
}

int get_u32(const zen_model* m, const char* key, uint32_t* out) {
  const gguf::Value* v = find(m, key);
  if (!v || !v->is_integer() || !out) return 0;
  try {
    *out = v->as_int<uint32_t>();
    return 1;
  } catch (const std::exception&) {
    return 0;
  }
}

int get_f32(const zen_model* m, const char* key, float* out) {
  const gguf::Value* v = find(m, key);
  if (!v || !out) return 0;
  if (v->type() == gguf::ValueType::F32 || v->type() == gguf::ValueType::F64) {
    *out = static_cast<float>(v->as_float());
    return 1;
  }
  if (v->is_integer()) {
    try {
      *out = static_cast<float>(v->as_int<int64_t>());
      return 1;
    } catch (const std::exception&) {
      return 0;
    }
  }
  return 0;
}

int get_bool(const zen_model* m, const char* key, int* out) {
  const gguf::Value* v = find(m, key);
  if (!v || v->type() != gguf::ValueType::BOOL || !out) return 0;
  *out = v->as_bool() ? 1 : 0;
  return 1;
}

int get_str(const zen_model* m, const char* key, const char** out) {
  const gguf::Value* v = find(m, key);
  if (!v || !v->is_string() || !out) return 0;
  *out = v->as_string().data();  // Values own NUL-terminated std::string storage
  return 1;
}

int get_array_len(const zen_model* m, const char* key, uint64_t* out) {
  const gguf::Value* v = find(m, key);
  if (!v || !v->is_array() || !out) return 0;
  *out = v->as_array().size();
  return 1;
}

int get_array_f32(const zen_model* m, const char* key, uint64_t i, float* out) {
  const gguf::Value* v = find(m, key);
  if (!v || !v->is_array() || !out) return 0;
  const gguf::Array& a = v->as_array();
  if (i >= a.size()) return 0;
  try {
    switch (a.element_type()) {
      case gguf::ValueType::F32:
        *out = a.at<float>(i);
        return 1;
      case gguf::ValueType::F64:
        *out = static_cast<float>(a.at<double>(i));
        return 1;
      case gguf::ValueType::BOOL:
        *out = a.at<bool>(i) ? 1.0f : 0.0f;
        return 1;
      default:
        if (!gguf::is_integer(a.element_type())) return 0;
        *out = static_cast<float>(a.int_at<int64_t>(i));
        return 1;
    }
  } catch (const std::exception&) {
    return 0;
  }
}

int tensor(const zen_model* m, const char* name, uint32_t* type, uint32_t* n_dims, int64_t* ne) {
  if (!m || !name) return 0;
  const gguf::TensorInfo* t = ModelFile::from(m).gguf().find_tensor(name);
  if (!t) return 0;
  if (type) *type = t->type;
  if (n_dims) *n_dims = t->n_dims;
  if (ne)
    for (uint32_t i = 0; i < gguf::kMaxDims; ++i) ne[i] = static_cast<int64_t>(t->ne[i]);
  return 1;
}

constexpr zen_model_api kApi = {ZEN_HDR_INIT(zen_model_api),
                                get_u32,
                                get_f32,
                                get_str,
                                get_array_len,
                                tensor,
                                get_array_f32,
                                get_bool};

}  // namespace

const zen_model_api* ModelFile::api() { return &kApi; }

}  // namespace zen::model
