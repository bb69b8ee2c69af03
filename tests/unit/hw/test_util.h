// Helpers shared by the hw tests: reading the kernel's own view of the machine (procfs, sysfs)
// so hwloc/cpuid results are checked against an independent source.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace zen::hw::test {

inline std::optional<std::string> read_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) return std::nullopt;
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline std::string trim(std::string s) {
  const auto a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  const auto b = s.find_last_not_of(" \t\r\n");
  return s.substr(a, b - a + 1);
}

// Value of the first "key : value" line of /proc/cpuinfo whose key is `key`.
inline std::optional<std::string> cpuinfo_field(const std::string& key) {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (trim(line.substr(0, colon)) == key) return trim(line.substr(colon + 1));
  }
  return std::nullopt;
}

// The first CPU's flag words ("flags" on x86, "Features" on aarch64).
inline std::optional<std::set<std::string>> cpuinfo_flags() {
  auto v = cpuinfo_field("flags");
  if (!v) v = cpuinfo_field("Features");
  if (!v) return std::nullopt;
  std::set<std::string> out;
  std::istringstream is(*v);
  for (std::string w; is >> w;) out.insert(w);
  return out;
}

// Parses the kernel's cpu list format: "0-3,8,10-11".
inline std::vector<unsigned> parse_cpu_list(const std::string& s) {
  std::vector<unsigned> out;
  std::istringstream is(trim(s));
  for (std::string part; std::getline(is, part, ',');) {
    part = trim(part);
    if (part.empty()) continue;
    const auto dash = part.find('-');
    const unsigned a = static_cast<unsigned>(std::stoul(part.substr(0, dash)));
    const unsigned b =
        dash == std::string::npos ? a : static_cast<unsigned>(std::stoul(part.substr(dash + 1)));
    for (unsigned i = a; i <= b; ++i) out.push_back(i);
  }
  return out;
}

// Runs fn in a forked child. Returns the raw wait status (check with WIFEXITED/WIFSIGNALED).
inline int run_in_child(const std::function<int()>& fn) {
  const pid_t pid = fork();
  if (pid == 0) _exit(fn());
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  return status;
}

}  // namespace zen::hw::test
