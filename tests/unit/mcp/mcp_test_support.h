// Shared by the ToolHub tests: the Python test MCP server (tests/mcp/servers/weather_server.py,
// official SDK), its call log, a log capture, and the server started in HTTP mode.
#pragma once

#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "mcp/child_process.h"
#include "mcp/tool_hub.h"

namespace zen::mcp::testing {

using nlohmann::json;
using Seconds = std::chrono::duration<double>;

inline std::string weather_server() { return ZEN_MCP_TEST_SERVERS_DIR "/weather_server.py"; }

// The reason to skip, or "" when python3 can import the MCP SDK.
inline std::string why_no_python_mcp() {
  static const std::string why =
      std::system("python3 -c 'import mcp.server.mcpserver' >/dev/null 2>&1") == 0
          ? ""
          : "python3 cannot import the MCP SDK (pip install mcp)";
  return why;
}

#define SKIP_WITHOUT_PYTHON_MCP()                                                 \
  do {                                                                            \
    if (std::string why = ::zen::mcp::testing::why_no_python_mcp(); !why.empty()) \
      GTEST_SKIP() << why;                                                        \
  } while (0)

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "zen-mcp-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// One JSON object per line, as weather_server.py appends them to $WEATHER_CALL_LOG.
inline std::vector<json> read_json_lines(const std::filesystem::path& file) {
  std::vector<json> lines;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(json::parse(line));
  }
  return lines;
}

// Waits until `file` has a line equal to `expected`.
inline bool wait_for_line(const std::filesystem::path& file, const json& expected,
                          Seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  do {
    for (const json& line : read_json_lines(file)) {
      if (line == expected) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  } while (std::chrono::steady_clock::now() < deadline);
  return false;
}

class LogCapture {
 public:
  LogFn fn() {
    return [this](const std::string& line) {
      std::lock_guard lock(mutex_);
      lines_.push_back(line);
    };
  }
  bool contains(const std::string& text) const {
    std::lock_guard lock(mutex_);
    for (const auto& line : lines_) {
      if (line.find(text) != std::string::npos) return true;
    }
    return false;
  }
  std::string all() const {
    std::lock_guard lock(mutex_);
    std::string out;
    for (const auto& line : lines_) out += "  " + line + "\n";
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

inline std::vector<std::string> tool_names(const json& openai_tools) {
  std::vector<std::string> names;
  for (const auto& tool : openai_tools)
    names.push_back(tool["function"]["name"].get<std::string>());
  return names;
}

inline Seconds since(std::chrono::steady_clock::time_point start) {
  return std::chrono::steady_clock::now() - start;
}

// `weather_server.py --http PORT [extra args]` as a child (PORT 0: any free one); port() once
// it printed "listening on PORT".
class HttpWeatherServer {
 public:
  HttpWeatherServer(std::map<std::string, std::string> env, std::vector<std::string> extra_args,
                    int port = 0) {
    ChildSpec spec{"python3",
                   {weather_server(), "--http", std::to_string(port)},
                   std::move(env),
                   std::nullopt,
                   {}};
    spec.args.insert(spec.args.end(), extra_args.begin(), extra_args.end());
    child_ = std::make_unique<ChildProcess>(spec);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    std::string seen;
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd fd{child_->stderr_fd(), POLLIN, 0};
      if (::poll(&fd, 1, 100) <= 0) continue;
      char buffer[512];
      ssize_t n = ::read(child_->stderr_fd(), buffer, sizeof buffer);
      if (n <= 0) break;
      seen.append(buffer, static_cast<size_t>(n));
      if (auto at = seen.find("listening on ");
          at != std::string::npos && seen.find('\n', at) != std::string::npos) {
        port_ = std::stoi(seen.substr(at + 13));
        return;
      }
    }
    throw std::runtime_error("weather_server.py --http 0 did not start: " + seen);
  }
  // SIGTERM soon: the server does not read stdin, so the polite first step is not worth 2 s.
  ~HttpWeatherServer() { child_->terminate(std::chrono::milliseconds(100)); }
  HttpWeatherServer(const HttpWeatherServer&) = delete;
  HttpWeatherServer& operator=(const HttpWeatherServer&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/mcp"; }

 private:
  std::unique_ptr<ChildProcess> child_;
  int port_ = 0;
};

}  // namespace zen::mcp::testing
