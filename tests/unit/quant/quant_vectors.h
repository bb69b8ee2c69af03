// Reader of the block-format test vectors in tests/data/quant (tools/make_quant_vectors.py):
// .deq files hold random blocks and gguf-py's dequantized floats, .qnt files Gaussian floats
// and gguf-py's quantized blocks. Header-only; shared by the quant unit tests and the op tests.
#pragma once

#include <zen/types.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace zen::quant::test {

struct QuantVectors {
  zen_type type = ZEN_TYPE_F32;
  uint32_t n_rows = 0, n_per_row = 0, row_bytes = 0;
  std::vector<uint8_t> blocks;    // n_rows * row_bytes
  std::vector<float> floats;      // n_rows * n_per_row
  std::vector<float> importance;  // n_per_row weights shared by every row ("ZQW1"), or empty
};

// Loads ZEN_TEST_DATA_DIR/quant/<file>; false when missing or malformed.
inline bool load_vectors(const std::string& file, QuantVectors* v) {
  std::ifstream in(std::string(ZEN_TEST_DATA_DIR) + "/quant/" + file, std::ios::binary);
  if (!in) return false;
  char magic[4];
  uint32_t hdr[4];
  if (!in.read(magic, 4) || !in.read(reinterpret_cast<char*>(hdr), sizeof(hdr))) return false;
  const bool deq = std::memcmp(magic, "ZQD1", 4) == 0;
  const bool weighted = std::memcmp(magic, "ZQW1", 4) == 0;
  if (!deq && !weighted && std::memcmp(magic, "ZQQ1", 4) != 0) return false;
  v->type = static_cast<zen_type>(hdr[0]);
  v->n_rows = hdr[1];
  v->n_per_row = hdr[2];
  v->row_bytes = hdr[3];
  v->blocks.resize(size_t(v->n_rows) * v->row_bytes);
  v->floats.resize(size_t(v->n_rows) * v->n_per_row);
  v->importance.resize(weighted ? v->n_per_row : 0);
  auto rd = [&](void* p, size_t n) {
    return bool(in.read(static_cast<char*>(p), std::streamsize(n)));
  };
  const size_t nb = v->blocks.size(), nf = v->floats.size() * sizeof(float);
  const bool ok = deq ? rd(v->blocks.data(), nb) && rd(v->floats.data(), nf)
                      : rd(v->floats.data(), nf) &&
                            rd(v->importance.data(), v->importance.size() * sizeof(float)) &&
                            rd(v->blocks.data(), nb);
  return ok && in.peek() == std::char_traits<char>::eof();
}

}  // namespace zen::quant::test
