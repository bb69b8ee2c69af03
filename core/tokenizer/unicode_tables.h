// The generated Unicode tables (unicode_tables.cpp, tools/make_unicode_tables.py). Use them
// through unicode_data.h.
#pragma once

#include <cstddef>
#include <cstdint>

namespace zen::tokenizer::unicode::tables {

struct CategoryRange {
  char32_t first, last;
  uint8_t value;
};
struct CaseMapping {
  char32_t from, to;
};
struct Decomposition {
  char32_t cp;
  uint16_t offset;  // into kDecompositionPool
  uint8_t length;
};

extern const char kUnicodeVersion[];
extern const CategoryRange kCategories[];        // value: unicode::Flag bits; sorted, disjoint
extern const CategoryRange kCombiningClasses[];  // value: canonical combining class
extern const CaseMapping kLowercase[];
extern const Decomposition kDecompositions[];
extern const char32_t kDecompositionPool[];
extern const size_t kCategoriesSize, kCombiningClassesSize, kLowercaseSize, kDecompositionsSize;

}  // namespace zen::tokenizer::unicode::tables
