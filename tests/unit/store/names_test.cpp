#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include <zen/plugin.hpp>

#include "store/store.h"

namespace zen::store {
namespace {

namespace fs = std::filesystem;

TEST(Names, ASuffixIsDroppedAndPathsAreRefused) {
  EXPECT_EQ(checked_name("gemma-3-270m-q4_k_m"), "gemma-3-270m-q4_k_m");
  EXPECT_EQ(checked_name("tiny.gguf"), "tiny");
  EXPECT_EQ(checked_name("Name With Spaces"), "Name With Spaces");
  std::vector<std::string> bad_names = {"",        ".gguf",  "..",        "../x",
                                        "a/b",     "/etc/x", "a\\b",      "x..y",
                                        ".hidden", "a\nb",   "x.partial", std::string(201, 'a')};
  bad_names.push_back(std::string("a\0b", 3));
  for (const std::string& bad : bad_names) {
    EXPECT_THROW(checked_name(bad), Error) << bad;
  }
}

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(Store, DirectoryFromTheEnvironment) {
  ScopedEnv home("HOME", "/home/someone");
  {
    ScopedEnv models("ZEN_MODELS_DIR", "/srv/models");
    EXPECT_EQ(models_dir(), fs::path("/srv/models"));
  }
  ScopedEnv models("ZEN_MODELS_DIR", "");
  {
    ScopedEnv cache("XDG_CACHE_HOME", "/var/cache/u");
    EXPECT_EQ(models_dir(), fs::path("/var/cache/u/zen-engine/models"));
  }
  ScopedEnv cache("XDG_CACHE_HOME", "");
  EXPECT_EQ(models_dir(), fs::path("/home/someone/.cache/zen-engine/models"));
}

TEST(Store, ResolveFindsPathsThenStoreNames) {
  fs::path dir =
      fs::path(::testing::TempDir()) / ("zen_store_resolve_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "m.gguf") << "x";
  ScopedEnv models("ZEN_MODELS_DIR", dir.string());

  EXPECT_EQ(resolve("m"), dir / "m.gguf");
  EXPECT_EQ(resolve("m.gguf"), dir / "m.gguf");                   // not in the cwd: the store's
  EXPECT_EQ(resolve((dir / "m.gguf").string()), dir / "m.gguf");  // a path as given
  try {
    resolve("absent");
    FAIL() << "resolve of an unknown name returned";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "model 'absent' not found (not a file, not in " +
                                         dir.string() + "; try `zen-engine pull`)");
  }
  EXPECT_THROW(resolve("../zen_store_resolve/m"), Error);  // not a file from the cwd either
  fs::remove_all(dir);
}

}  // namespace
}  // namespace zen::store
