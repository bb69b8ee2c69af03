// Comma-separated integer lists of command-line flags ("--decode-seqs 1,4,16").
#pragma once

#include <charconv>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace zen::text {

// "1,4,16" -> {1, 4, 16}; throws std::invalid_argument naming `flag` for an item that is not
// an integer in [lo, hi].
inline std::vector<int> parse_int_list(const std::string& list, const char* flag, int lo, int hi) {
  std::vector<int> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    int v = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || end != item.data() + item.size() || v < lo || v > hi)
      throw std::invalid_argument(std::string(flag) + ": '" + item + "' is not a number in " +
                                  std::to_string(lo) + ".." + std::to_string(hi));
    out.push_back(v);
  }
  return out;
}

}  // namespace zen::text
