// Strided element access and row splitting shared by the reference kernels. Everything goes
// through nb, so views (permuted, sliced) work without a contiguous copy.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include <zen/graph.h>
#include <zen/plugin.hpp>

#include "fp16.h"

namespace ZEN_CPU_NS {

inline const char* at(const char* base, const zen_tensor& t, int64_t i0, int64_t i1, int64_t i2,
                      int64_t i3) {
  return base + i0 * static_cast<int64_t>(t.nb[0]) + i1 * static_cast<int64_t>(t.nb[1]) +
         i2 * static_cast<int64_t>(t.nb[2]) + i3 * static_cast<int64_t>(t.nb[3]);
}
inline char* at(char* base, const zen_tensor& t, int64_t i0, int64_t i1, int64_t i2, int64_t i3) {
  return const_cast<char*>(at(static_cast<const char*>(base), t, i0, i1, i2, i3));
}

template <class T>
inline float load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return to_f32(v);
}

template <class T>
inline void store(char* p, float f) {
  T v = from_f32<T>(f);
  std::memcpy(p, &v, sizeof v);
}

inline int64_t rows(const zen_tensor& t) { return t.ne[1] * t.ne[2] * t.ne[3]; }

// Thread ith of nth takes a contiguous share of n work items.
struct Range {
  int64_t begin, end;
};
inline Range share(int64_t n, int ith, int nth) {
  const int64_t chunk = (n + nth - 1) / nth;
  const int64_t begin = std::min(n, chunk * ith);
  return {begin, std::min(n, begin + chunk)};
}

// Row r of t (r < rows(t)) as its (i1, i2, i3) indices.
struct RowIndex {
  int64_t i1, i2, i3;
};
inline RowIndex row_index(const zen_tensor& t, int64_t r) {
  return {r % t.ne[1], (r / t.ne[1]) % t.ne[2], r / (t.ne[1] * t.ne[2])};
}

// get_rows: the table row that output row i takes, from the I32 ids; a bad id (a hostile token)
// must never read outside the table, so it is an error.
inline int64_t checked_row_id(const char* ids_base, const zen_tensor& ids, const RowIndex& i,
                              int64_t table_rows) {
  int32_t id;
  std::memcpy(&id, at(ids_base, ids, i.i1, i.i2, i.i3, 0), sizeof id);
  if (id < 0 || id >= table_rows)
    throw zen::Error(ZEN_ERR_INVALID_ARG, "get_rows: row id " + std::to_string(id) +
                                              " is outside 0.." + std::to_string(table_rows - 1));
  return id;
}

}  // namespace ZEN_CPU_NS
