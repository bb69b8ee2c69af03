// The real loader against real .so files: good, broken and hostile plugins in one directory.
// Each must be loaded, kept on standby or refused with the reason the test names, and the
// host must carry on past every bad one.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include <zen/plugin.hpp>

#include "config.h"
#include "graph/device_ref.h"
#include "host_api.h"
#include "plugin_registry.h"

namespace fs = std::filesystem;
using zen::host::PluginRecord;
using zen::host::PluginState;

namespace {

class PluginLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("zen-abi-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    for (const auto& e : fs::directory_iterator(ZEN_FAKE_PLUGIN_DIR))
      fs::copy_file(e.path(), dir_ / e.path().filename());
    std::ofstream(dir_ / "zen-corrupt.so") << "this is not an ELF file\x7f\x01garbage";
    std::ofstream(dir_ / "README.txt") << "not a plugin, not even a .so";
    // Truncated copy of a real plugin: an ELF header that lies about the rest.
    std::string good = (dir_ / "zen-fake-good.so").string();
    std::ifstream in(good, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::ofstream(dir_ / "zen-truncated.so", std::ios::binary) << bytes.substr(0, 200);

    config_.plugin_paths = {dir_.string()};
    ::unsetenv("ZEN_PLUGIN_PATH");
    registry_ = std::make_unique<zen::host::PluginRegistry>(config_, zen::host::host_api(config_));
  }
  void TearDown() override {
    registry_.reset();
    fs::remove_all(dir_);
  }

  const PluginRecord& record(const std::string& file) {
    for (const auto& r : registry_->records())
      if (fs::path(r.path).filename() == file) return r;
    ADD_FAILURE() << "no record for " << file;
    static PluginRecord none;
    return none;
  }

  fs::path dir_;
  zen::host::Config config_;
  std::unique_ptr<zen::host::PluginRegistry> registry_;
};

TEST_F(PluginLoaderTest, GoodPluginLoads) {
  const auto& r = record("zen-fake-good.so");
  EXPECT_EQ(r.state, PluginState::loaded) << r.reason;
  EXPECT_EQ(r.name, "fake-good");
  EXPECT_EQ(r.version, "9.9.9");
  EXPECT_EQ(r.kind, ZEN_KIND_DEVICE);
  EXPECT_EQ(r.score, 5u);
  EXPECT_NE(r.vtable, nullptr);
  EXPECT_EQ(registry_->find(ZEN_KIND_DEVICE, "fake-good"), &r);
}

TEST_F(PluginLoaderTest, WrongMajorRefused) {
  const auto& r = record("zen-fake-wrong-major.so");
  EXPECT_EQ(r.state, PluginState::refused);
  const std::string want =
      "built for ABI 2." + std::to_string(ZEN_ABI_MINOR) + ", host speaks ABI 1.x";
  EXPECT_NE(r.reason.find(want), std::string::npos) << r.reason;
  EXPECT_EQ(registry_->find(ZEN_KIND_DEVICE, "fake-wrong-major"), nullptr);
}

TEST_F(PluginLoaderTest, NewerMinorAcceptedWithNote) {
  const auto& r = record("zen-fake-newer-minor.so");
  EXPECT_EQ(r.state, PluginState::loaded) << r.reason;
  EXPECT_NE(r.reason.find("newer ABI 1." + std::to_string(ZEN_ABI_MINOR + 3)), std::string::npos)
      << r.reason;
  EXPECT_NE(r.reason.find("newer members ignored"), std::string::npos) << r.reason;
}

TEST_F(PluginLoaderTest, ScoreZeroRefusedWithProbeReason) {
  const auto& r = record("zen-fake-score0.so");
  EXPECT_EQ(r.state, PluginState::refused);
  EXPECT_EQ(r.score, 0u);
  EXPECT_NE(r.reason.find("probe score 0"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("needs imaginary hardware"), std::string::npos) << r.reason;
}

TEST_F(PluginLoaderTest, NullOptionalMembersAccepted) {
  const auto& r = record("zen-fake-null-optional.so");
  EXPECT_EQ(r.state, PluginState::loaded) << r.reason;
  EXPECT_NE(r.reason.find("optional members absent: buffer_wrap_host, get_proc"), std::string::npos)
      << r.reason;
}

TEST_F(PluginLoaderTest, NullRequiredMemberRefused) {
  const auto& r = record("zen-fake-null-required.so");
  EXPECT_EQ(r.state, PluginState::refused);
  EXPECT_NE(r.reason.find("required member compute is NULL"), std::string::npos) << r.reason;
}

TEST_F(PluginLoaderTest, VtableTooSmallRefused) {
  const auto& r = record("zen-fake-small-vtable.so");
  EXPECT_EQ(r.state, PluginState::refused);
  EXPECT_NE(r.reason.find("too small"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("compute"), std::string::npos) << r.reason;
}

TEST_F(PluginLoaderTest, MissingEntryPointRefused) {
  const auto& r = record("zen-fake-missing-init.so");
  EXPECT_EQ(r.state, PluginState::refused);
  EXPECT_EQ(r.reason, "missing entry point zen_plugin_init");
}

TEST_F(PluginLoaderTest, CorruptAndTruncatedFilesRefused) {
  for (const char* file : {"zen-corrupt.so", "zen-truncated.so"}) {
    const auto& r = record(file);
    EXPECT_EQ(r.state, PluginState::refused) << file;
    EXPECT_NE(r.reason.find("cannot load shared object"), std::string::npos) << r.reason;
  }
}

TEST_F(PluginLoaderTest, NonPluginFilesIgnored) {
  for (const auto& r : registry_->records()) EXPECT_NE(fs::path(r.path).filename(), "README.txt");
}

TEST_F(PluginLoaderTest, SameNameCompetesByScore) {
  const auto& low = record("zen-fake-rank-low.so");
  const auto& high = record("zen-fake-rank-high.so");
  EXPECT_EQ(high.state, PluginState::loaded);
  EXPECT_EQ(low.state, PluginState::standby);
  EXPECT_NE(low.reason.find("lower score than fake-rank (7)"), std::string::npos) << low.reason;
  EXPECT_EQ(registry_->find(ZEN_KIND_DEVICE, "fake-rank"), &high);
}

// The one error convention (zen_plugin_last_error): a failing init or device_open says why.
TEST_F(PluginLoaderTest, AFailedInitGivesThePluginsMessage) {
  const auto& r = record("zen-fake-init-fails.so");
  EXPECT_EQ(r.state, PluginState::refused);
  EXPECT_NE(r.reason.find("init failed with status 5: fake: the license file /etc/fake.lic is "
                          "missing"),
            std::string::npos)
      << r.reason;
}

TEST_F(PluginLoaderTest, AFailedDeviceOpenGivesThePluginsMessage) {
  const PluginRecord* r = registry_->find(ZEN_KIND_DEVICE, "fake-open-fails");
  ASSERT_NE(r, nullptr);
  ASSERT_NE(r->last_error, nullptr);
  const auto* table = static_cast<const zen_device_v1*>(r->vtable);
  try {
    zen::graph::DeviceRef::open(table, 0, "fake-open-fails:0", r->last_error);
    FAIL() << "the open succeeded";
  } catch (const zen::Error& e) {
    EXPECT_EQ(e.status, ZEN_ERR_IO);
    EXPECT_STREQ(e.what(),
                 "fake-open-fails:0: open failed: fake: the device node /dev/fake0 is "
                 "busy");
  }
}

// Probe first (zen_plugin_identify): the host initialises only the plugin it picks.
TEST_F(PluginLoaderTest, IdentifiedPluginsAreInitialisedOnlyWhenChosen) {
  const auto& low = record("zen-fake-identified-low.so");
  const auto& high = record("zen-fake-identified-high.so");
  EXPECT_EQ(high.state, PluginState::loaded) << high.reason;
  EXPECT_EQ(low.state, PluginState::standby) << low.reason;
  EXPECT_EQ(low.reason, "lower score than fake-identified (7); not initialised");
}

TEST_F(PluginLoaderTest, EveryRecordHasAOneLineReasonWhenNotLoaded) {
  for (const auto& r : registry_->records()) {
    if (r.state == PluginState::loaded) continue;
    EXPECT_FALSE(r.reason.empty()) << r.path;
    EXPECT_EQ(r.reason.find('\n'), std::string::npos) << r.reason;
  }
}

TEST(PluginSearchDirs, ConfigThenEnvThenInstallDir) {
  zen::host::Config c;
  c.plugin_paths = {"/from/config"};
  ::setenv("ZEN_PLUGIN_PATH", "/env/a::/env/b", 1);
  auto dirs = zen::host::plugin_search_dirs(c);
  ::unsetenv("ZEN_PLUGIN_PATH");
  ASSERT_GE(dirs.size(), 4u);
  EXPECT_EQ(dirs[0], "/from/config");
  EXPECT_EQ(dirs[1], "/env/a");
  EXPECT_EQ(dirs[2], "/env/b");
  EXPECT_NE(dirs[3].find("zen/plugins"), std::string::npos);
}

}  // namespace
