// The child process behind the stdio transport: environment, working directory, descriptors
// it must not inherit, exit statuses, writes to a child that stops reading, and the errors
// for what cannot start.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>
#include <thread>

#include "mcp/child_process.h"

namespace zen::mcp {
namespace {

// Everything the child writes to stdout, until it closes it.
std::string read_all_stdout(ChildProcess& child) {
  std::string out;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(child.stdout_fd(), buffer, sizeof buffer);
    if (n <= 0) return out;
    out.append(buffer, static_cast<size_t>(n));
  }
}

std::string start_error(const ChildSpec& spec) {
  try {
    ChildProcess child(spec);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(ChildProcess, GetsAMinimalEnvironmentWhatItNamesAndItsWorkingDirectory) {
  ::setenv("ZEN_MCP_TEST_INHERITED", "from-host", 1);
  ::setenv("ZEN_MCP_TEST_SECRET", "not-for-children", 1);
  ChildSpec spec{"sh",
                 {"-c",
                  "echo $ZEN_MCP_TEST_INHERITED $ZEN_MCP_TEST_SET "
                  "${ZEN_MCP_TEST_SECRET:-unset} ${PATH:+has-path}; pwd"},
                 {{"ZEN_MCP_TEST_SET", "from-config"}},
                 std::filesystem::path("/"),
                 {"ZEN_MCP_TEST_INHERITED"}};
  ChildProcess child(spec);
  EXPECT_EQ(read_all_stdout(child), "from-host from-config unset has-path\n/\n");
  ASSERT_TRUE(child.wait_for_exit(std::chrono::seconds(10)));
  EXPECT_EQ(child.exit_description(), "status 0");
}

TEST(ChildProcess, InheritsNoDescriptorBeyondItsStandardStreams) {
  // A listening socket opened the way a server might, without close-on-exec.
  int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 3);
  ASSERT_EQ(::listen(listener, 1), 0);
  // "; true" keeps sh from exec-ing ls, so the listing is sh's own descriptors.
  ChildSpec spec{"sh", {"-c", "ls /proc/$$/fd; true"}, {}, std::nullopt, {}};
  ChildProcess child(spec);
  std::string fds = read_all_stdout(child);
  ::close(listener);
  EXPECT_EQ(fds, "0\n1\n2\n");
}

TEST(ChildProcess, ReportsTheExitStatusOrSignal) {
  ChildProcess exits({"sh", {"-c", "exit 3"}, {}, std::nullopt, {}});
  ASSERT_TRUE(exits.wait_for_exit(std::chrono::seconds(10)));
  EXPECT_EQ(exits.exit_description(), "status 3");

  ChildProcess stubborn({"sh", {"-c", "trap '' TERM; sleep 30"}, {}, std::nullopt, {}});
  EXPECT_FALSE(stubborn.wait_for_exit(std::chrono::milliseconds(50)));
  stubborn.terminate(std::chrono::milliseconds(200));  // stdin, SIGTERM ignored, then SIGKILL
  EXPECT_EQ(stubborn.exit_description(), "signal 9");
}

TEST(ChildProcess, WritingToAChildThatExitedFailsWithoutSigpipe) {
  ChildProcess child({"sh", {"-c", "exit 0"}, {}, std::nullopt, {}});
  ASSERT_TRUE(child.wait_for_exit(std::chrono::seconds(10)));
  // The test process is still alive.
  EXPECT_EQ(child.write_stdin("{}\n", {}), ChildProcess::WriteResult::kClosed);
}

TEST(ChildProcess, AChildThatStopsReadingBlocksNeitherTheWriterNorClosing) {
  ChildProcess child({"sh", {"-c", "sleep 30"}, {}, std::nullopt, {}});
  const std::string big(4 << 20, 'x');  // far beyond a pipe's buffer
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
  EXPECT_EQ(child.write_stdin(big, [&] { return std::chrono::steady_clock::now() > deadline; }),
            ChildProcess::WriteResult::kStalled);
  // A writer that would wait forever lets go when stdin is closed (as terminate() does).
  std::thread writer([&] {
    EXPECT_EQ(child.write_stdin(big, [] { return false; }), ChildProcess::WriteResult::kStalled);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  child.terminate(std::chrono::milliseconds(200));
  writer.join();
}

TEST(ChildProcess, WhatCannotStartSaysWhy) {
  EXPECT_EQ(start_error({"zen-no-such-command", {}, {}, std::nullopt, {}}),
            "cannot start 'zen-no-such-command': command not found in PATH");
  EXPECT_EQ(start_error({"sh", {}, {}, std::filesystem::path("/nonexistent/dir"), {}}),
            "cannot start 'sh': working directory /nonexistent/dir does not exist");
  // A file without execute permission (root may run any file with an x bit, but none).
  std::string pattern = (std::filesystem::temp_directory_path() / "zen-mcp-noexec-XXXXXX").string();
  int fd = ::mkstemp(pattern.data());
  ASSERT_GE(fd, 0);
  ::close(fd);
  EXPECT_EQ(start_error({pattern, {}, {}, std::nullopt, {}}),
            "cannot start '" + pattern + "': exec failed: Permission denied");
  std::filesystem::remove(pattern);
}

}  // namespace
}  // namespace zen::mcp
