#include "tokenizer/unicode_data.h"

#include <algorithm>

#include "tokenizer/unicode_tables.h"

namespace zen::tokenizer::unicode {
namespace {

using tables::CategoryRange;

uint8_t range_value(const CategoryRange* table, size_t n, char32_t cp) {
  const CategoryRange* end = table + n;
  const CategoryRange* it = std::upper_bound(
      table, end, cp, [](char32_t c, const CategoryRange& r) { return c < r.first; });
  if (it == table) return 0;
  --it;
  return cp <= it->last ? it->value : 0;
}

constexpr char32_t kHangulFirst = 0xAC00, kHangulLast = 0xD7A3;
constexpr char32_t kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr char32_t kVCount = 21, kTCount = 28;

}  // namespace

uint8_t flags(char32_t cp) {
  if (cp < 0x80) {  // ASCII fast path: controls and punctuation only
    if (cp < 0x20 || cp == 0x7F) return kOther;
    return range_value(tables::kCategories, tables::kCategoriesSize, cp);
  }
  return range_value(tables::kCategories, tables::kCategoriesSize, cp);
}

bool is_white_space(char32_t cp) {
  if (cp < 0x80) return cp == ' ' || (cp >= 0x09 && cp <= 0x0D);
  return cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

void append_lower(char32_t cp, std::vector<char32_t>& out) {
  if (cp < 0x80) {
    out.push_back(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp);
    return;
  }
  if (cp == 0x130) {  // İ: i + combining dot above
    out.push_back('i');
    out.push_back(0x307);
    return;
  }
  const auto* end = tables::kLowercase + tables::kLowercaseSize;
  const auto* it =
      std::lower_bound(tables::kLowercase, end, cp,
                       [](const tables::CaseMapping& m, char32_t c) { return m.from < c; });
  out.push_back(it != end && it->from == cp ? it->to : cp);
}

void append_decomposition(char32_t cp, std::vector<char32_t>& out) {
  if (cp < 0xC0) {
    out.push_back(cp);
    return;
  }
  if (cp >= kHangulFirst && cp <= kHangulLast) {
    char32_t s = cp - kHangulFirst;
    out.push_back(kLBase + s / (kVCount * kTCount));
    out.push_back(kVBase + (s % (kVCount * kTCount)) / kTCount);
    if (s % kTCount) out.push_back(kTBase + s % kTCount);
    return;
  }
  const auto* end = tables::kDecompositions + tables::kDecompositionsSize;
  const auto* it =
      std::lower_bound(tables::kDecompositions, end, cp,
                       [](const tables::Decomposition& d, char32_t c) { return d.cp < c; });
  if (it == end || it->cp != cp) {
    out.push_back(cp);
    return;
  }
  out.insert(out.end(), tables::kDecompositionPool + it->offset,
             tables::kDecompositionPool + it->offset + it->length);
}

uint8_t combining_class(char32_t cp) {
  if (cp < 0x300) return 0;
  return range_value(tables::kCombiningClasses, tables::kCombiningClassesSize, cp);
}

void nfd(std::vector<char32_t>& cps, std::vector<char32_t>& scratch) {
  scratch.clear();
  for (char32_t cp : cps) append_decomposition(cp, scratch);
  // Canonical ordering: a stable sort of each run of non-starters by combining class.
  for (size_t i = 0; i < scratch.size();) {
    if (combining_class(scratch[i]) == 0) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < scratch.size() && combining_class(scratch[j]) != 0) ++j;
    std::stable_sort(scratch.begin() + static_cast<std::ptrdiff_t>(i),
                     scratch.begin() + static_cast<std::ptrdiff_t>(j), [](char32_t a, char32_t b) {
                       return combining_class(a) < combining_class(b);
                     });
    i = j;
  }
  cps.swap(scratch);
}

}  // namespace zen::tokenizer::unicode
