#include "quant/quantize_file.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include <zen/quant_codec.hpp>

#include "gguf/writer.h"
#include "quant/convert.h"

namespace zen::quant {
namespace {

// Output bytes converted per round of the worker threads: bounds memory for huge tensors.
constexpr uint64_t kChunkBytes = uint64_t{32} << 20;

// Streams tensor `t` converted to `to` into the writer, a chunk of rows at a time.
void convert_tensor(const gguf::TensorInfo& t, zen_type to, unsigned threads, gguf::Writer& out) {
  const uint64_t rows = t.n_elements / t.ne[0];
  const uint64_t out_row = row_bytes(to, static_cast<int64_t>(t.ne[0]));
  const uint64_t rows_per_chunk = std::max<uint64_t>(1, kChunkBytes / out_row);
  std::vector<uint8_t> buf(std::min(rows, rows_per_chunk) * out_row);
  for (uint64_t first = 0; first < rows; first += rows_per_chunk) {
    const uint64_t n = std::min(rows_per_chunk, rows - first);
    convert_rows(t, to, first, n, buf.data(), threads);
    out.write({buf.data(), n * out_row});
  }
}

}  // namespace

QuantizeFileResult quantize_file(const std::string& in_path, const std::string& out_path,
                                 const QuantizeFileOptions& o, const QuantizeStart& on_start,
                                 const QuantizeProgress& on_tensor) {
  return quantize_file(gguf::File::open(in_path), in_path, out_path, o, on_start, on_tensor);
}

QuantizeFileResult quantize_file(const gguf::File& in, const std::string& in_path,
                                 const std::string& out_path, const QuantizeFileOptions& o,
                                 const QuantizeStart& on_start, const QuantizeProgress& on_tensor) {
  if (in_path != out_path && std::filesystem::is_directory(out_path)) {
    throw gguf::Error(out_path + ": is a directory");
  }
  const auto plans = plan_conversions(in, *o.target, o.recipe, o.allow_requantize, in_path);

  gguf::Writer out(out_path);
  for (const auto& kv : in.metadata()) out.set(kv.key, kv.value);
  for (const char* key : {"split.no", "split.count", "split.tensors.count"}) out.remove(key);
  out.set("general.quantization_version", gguf::value_of(kQuantizationVersion));
  out.set("general.file_type", gguf::value_of(o.target->id));
  std::vector<uint64_t> sizes;
  for (size_t i = 0; i < plans.size(); ++i) {
    const auto& t = in.tensors()[i];
    sizes.push_back(out.add_tensor(t.name, plans[i].type, t.dims()));
  }
  out.begin_data();  // creates the temporary file now, so an unwritable OUT fails early
  if (on_start) on_start();

  QuantizeFileResult r;
  for (size_t i = 0; i < plans.size(); ++i) {
    const auto& t = in.tensors()[i];
    if (plans[i].type == t.type)
      out.write(t.bytes());
    else
      convert_tensor(t, plans[i].type, o.threads, out);
    if (on_tensor) on_tensor({i, plans.size(), t, plans[i], sizes[i]});
    r.in_bytes += t.n_bytes;
    r.out_bytes += sizes[i];
  }
  out.finish();
  return r;
}

}  // namespace zen::quant
