// One-off oracle for `tools/make_quant_vectors.py --ggml-src DIR`: quantizes rows of floats
// with ggml's own reference quantizers (DIR/src/ggml-quants.c of a llama.cpp checkout, which
// the script compiles and links with this file; no importance matrix, so ggml runs its *_ref
// algorithms) and writes the blocks. Not part of the build: it only produces test data.
//   usage: ggml_quant_oracle <ggml type id> <n_rows> <n_per_row> <in.f32> <out.bin> [imatrix.f32]
// With an imatrix file (n_per_row weights, shared by every row) ggml runs its importance
// variants instead.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" {
using QuantizeFn = size_t (*)(const float*, void*, int64_t, int64_t, const float*);
using RowFn = void (*)(const float*, void*, int64_t);
size_t quantize_q4_0(const float*, void*, int64_t, int64_t, const float*);
size_t quantize_q4_1(const float*, void*, int64_t, int64_t, const float*);
size_t quantize_q5_0(const float*, void*, int64_t, int64_t, const float*);
size_t quantize_q5_1(const float*, void*, int64_t, int64_t, const float*);
size_t quantize_q8_0(const float*, void*, int64_t, int64_t, const float*);
size_t quantize_q2_K(const float*, void*, int64_t, int64_t, const float*);
size_t quantize_q3_K(const float*, void*, int64_t, int64_t, const float*);
size_t quantize_q4_K(const float*, void*, int64_t, int64_t, const float*);
size_t quantize_q5_K(const float*, void*, int64_t, int64_t, const float*);
size_t quantize_q6_K(const float*, void*, int64_t, int64_t, const float*);
size_t quantize_iq4_nl(const float*, void*, int64_t, int64_t, const float*);
size_t quantize_iq4_xs(const float*, void*, int64_t, int64_t, const float*);
void quantize_row_q8_1_ref(const float*, void*, int64_t);
void quantize_row_q8_K_ref(const float*, void*, int64_t);
void quantize_row_mxfp4_ref(const float*, void*, int64_t);

// The few ggml.c functions ggml-quants.c calls.
struct Size {
  int64_t block_size, block_bytes;
};
static Size size_of(int type) {
  switch (type) {
    case 2:
      return {32, 18};
    case 3:
      return {32, 20};
    case 6:
      return {32, 22};
    case 7:
      return {32, 24};
    case 8:
      return {32, 34};
    case 9:
      return {32, 36};
    case 10:
      return {256, 84};
    case 11:
      return {256, 110};
    case 12:
      return {256, 144};
    case 13:
      return {256, 176};
    case 14:
      return {256, 210};
    case 15:
      return {256, 292};
    case 20:
      return {32, 18};
    case 23:
      return {256, 136};
    case 39:
      return {32, 17};
    default:
      std::fprintf(stderr, "type %d?\n", type);
      std::exit(5);
  }
}
void ggml_abort(const char* file, int line, const char*, ...) {
  std::fprintf(stderr, "ggml_abort %s:%d\n", file, line);
  std::abort();
}
size_t ggml_type_size(int type) { return size_t(size_of(type).block_bytes); }
size_t ggml_row_size(int type, int64_t ne) {
  return size_t(ne / size_of(type).block_size * size_of(type).block_bytes);
}
const char* ggml_type_name(int) { return "?"; }
}

int main(int argc, char** argv) {
  if (argc != 6 && argc != 7) return 2;
  const int type = std::atoi(argv[1]);
  const int64_t rows = std::atoll(argv[2]), n = std::atoll(argv[3]);
  std::vector<float> x(size_t(rows * n));
  FILE* in = std::fopen(argv[4], "rb");
  if (!in || std::fread(x.data(), 4, x.size(), in) != x.size()) return 3;
  std::fclose(in);
  std::vector<float> imatrix;
  if (argc == 7) {
    imatrix.resize(size_t(n));
    FILE* im = std::fopen(argv[6], "rb");
    if (!im || std::fread(imatrix.data(), 4, imatrix.size(), im) != imatrix.size()) return 3;
    std::fclose(im);
  }
  const float* qw = imatrix.empty() ? nullptr : imatrix.data();
  const size_t row_bytes = ggml_row_size(type, n);
  std::vector<uint8_t> out(row_bytes * size_t(rows));
  QuantizeFn f = nullptr;
  RowFn rf = nullptr;
  switch (type) {
    case 2:
      f = quantize_q4_0;
      break;
    case 3:
      f = quantize_q4_1;
      break;
    case 6:
      f = quantize_q5_0;
      break;
    case 7:
      f = quantize_q5_1;
      break;
    case 8:
      f = quantize_q8_0;
      break;
    case 9:
      rf = quantize_row_q8_1_ref;
      break;
    case 10:
      f = quantize_q2_K;
      break;
    case 11:
      f = quantize_q3_K;
      break;
    case 12:
      f = quantize_q4_K;
      break;
    case 13:
      f = quantize_q5_K;
      break;
    case 14:
      f = quantize_q6_K;
      break;
    case 15:
      rf = quantize_row_q8_K_ref;
      break;
    case 20:
      f = quantize_iq4_nl;
      break;
    case 23:
      f = quantize_iq4_xs;
      break;
    case 39:
      rf = quantize_row_mxfp4_ref;
      break;
    default:
      return 5;
  }
  if (f) {
    f(x.data(), out.data(), rows, n, qw);
  } else {
    if (qw) return 6;  // these types have no importance variant
    for (int64_t r = 0; r < rows; ++r) rf(x.data() + r * n, out.data() + r * row_bytes, n);
  }
  FILE* o = std::fopen(argv[5], "wb");
  if (!o || std::fwrite(out.data(), 1, out.size(), o) != out.size()) return 4;
  std::fclose(o);
  return 0;
}
