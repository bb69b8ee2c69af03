#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "config.h"

using zen::host::Config;
using zen::host::ConfigError;
using zen::host::parse_config;

namespace {

// The error message for `text`, or "" if it parsed.
std::string error_of(const std::string& text) {
  try {
    parse_config(text, "test.json");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(Config, FullExampleParses) {
  Config c = parse_config(R"({
    "plugins": {"paths": ["/opt/zen/plugins"]},
    "devices": ["vulkan:0", "cpu"],
    "cpu": {"variant": "avx2", "threads": 2, "pinning": "none"},
    "log": {"level": "debug"},
    "device": {"vulkan": {"heap_mb": 512}}
  })",
                          "x.json");
  EXPECT_EQ(c.plugin_paths, std::vector<std::string>{"/opt/zen/plugins"});
  EXPECT_EQ(c.devices, (std::vector<std::string>{"vulkan:0", "cpu"}));
  EXPECT_EQ(c.cpu_variant, "avx2");
  EXPECT_EQ(c.cpu_threads, 2u);
  EXPECT_EQ(c.cpu_pinning, zen::host::Pinning::none);
  EXPECT_EQ(c.log_level, "debug");
  EXPECT_EQ(c.lookup("device.vulkan.heap_mb"), "512");
  EXPECT_EQ(c.lookup("cpu.variant"), "avx2");
  EXPECT_EQ(c.lookup("cpu.nothing"), std::nullopt);
}

TEST(Config, DefaultsWhenEmpty) {
  Config c = parse_config("{}", "x.json");
  EXPECT_TRUE(c.devices.empty());
  EXPECT_TRUE(c.cpu_variant.empty());
  EXPECT_EQ(c.cpu_threads, 0u);
  EXPECT_EQ(c.cpu_pinning, zen::host::Pinning::cores);
}

TEST(Config, UnknownKeysNamed) {
  EXPECT_NE(error_of(R"({"devics": []})").find("'devics' is not a known key"), std::string::npos);
  EXPECT_NE(error_of(R"({"cpu": {"thread": 2}})").find("'cpu.thread' is not a known key"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"cpu": {"thread": 2}})").find("threads"), std::string::npos)
      << "the message lists the known keys";
  EXPECT_NE(error_of(R"({"plugins": {"path": "x"}})").find("'plugins.path'"), std::string::npos);
}

TEST(Config, BadValuesNamed) {
  EXPECT_NE(error_of(R"({"cpu": {"threads": "two"}})").find("'cpu.threads' must be an integer"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"cpu": {"threads": -1}})").find("'cpu.threads'"), std::string::npos);
  EXPECT_NE(error_of(R"({"cpu": {"pinning": "numa-magic"}})").find("'cpu.pinning'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"devices": "cpu"})").find("'devices' must be an array"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"devices": ["cpu", 3]})").find("'devices[1]' must be a string"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"devices": ["Vulkan 0"]})").find("'devices[0]'"), std::string::npos);
  EXPECT_NE(error_of(R"({"plugins": {"paths": [1]}})").find("'plugins.paths[0]'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"log": {"level": "loud"}})").find("'log.level'"), std::string::npos);
  EXPECT_NE(error_of(R"({"device": {"vulkan": 3}})").find("'device.vulkan' must be an object"),
            std::string::npos);
}

TEST(Config, MalformedJsonAndWrongTopLevel) {
  EXPECT_NE(error_of("{\"cpu\": ").find("test.json: not valid JSON"), std::string::npos);
  EXPECT_NE(error_of("[1, 2]").find("must be a JSON object"), std::string::npos);
}

TEST(Config, LoadOrderAndEnvOverride) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("zen-config-" + std::to_string(::getpid()));
  fs::create_directories(dir / "zen-engine");
  std::ofstream(dir / "explicit.json") << R"({"cpu": {"threads": 3}})";
  std::ofstream(dir / "env.json") << R"({"cpu": {"threads": 4}})";
  std::ofstream(dir / "zen-engine" / "config.json") << R"({"cpu": {"threads": 5}})";
  ::setenv("XDG_CONFIG_HOME", dir.c_str(), 1);
  ::unsetenv("ZEN_CONFIG");
  ::unsetenv("ZEN_CPU_VARIANT");
  EXPECT_EQ(zen::host::load_config(std::nullopt).cpu_threads, 5u);  // user config dir
  ::setenv("ZEN_CONFIG", (dir / "env.json").c_str(), 1);
  EXPECT_EQ(zen::host::load_config(std::nullopt).cpu_threads, 4u);  // $ZEN_CONFIG
  EXPECT_EQ(zen::host::load_config((dir / "explicit.json").string()).cpu_threads, 3u);
  ::setenv("ZEN_CPU_VARIANT", "x86-64-v2", 1);
  Config c = zen::host::load_config(std::nullopt);
  EXPECT_EQ(c.cpu_variant, "x86-64-v2");
  EXPECT_EQ(c.lookup("cpu.variant"), "x86-64-v2");
  ::unsetenv("ZEN_CPU_VARIANT");
  ::unsetenv("ZEN_CONFIG");
  EXPECT_THROW(zen::host::load_config((dir / "missing.json").string()), ConfigError);
  ::unsetenv("XDG_CONFIG_HOME");
  fs::remove_all(dir);
}

}  // namespace
