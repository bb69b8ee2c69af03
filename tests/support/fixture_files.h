// Reading test fixtures: whole files, and the fixed "now" the template fixtures were rendered
// at (tools/make_template_fixtures.py).
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace zen::test {

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// "2024-07-26T09:30:00" as the broken-down time strftime_now() reports.
inline std::tm fixture_now(const std::string& iso) {
  std::tm t{};
  EXPECT_EQ(std::sscanf(iso.c_str(), "%d-%d-%dT%d:%d:%d", &t.tm_year, &t.tm_mon, &t.tm_mday,
                        &t.tm_hour, &t.tm_min, &t.tm_sec),
            6);
  t.tm_year -= 1900;
  t.tm_mon -= 1;
  std::time_t seconds = timegm(&t);  // normalizes and fills weekday and day of year
  std::tm out{};
  gmtime_r(&seconds, &out);
  return out;
}

}  // namespace zen::test
