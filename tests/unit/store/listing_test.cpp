// list_models and remove_model on a real directory holding copies of the committed tiny
// models: architecture and quant come from their GGUF headers (the expected values are what
// tests/data/models/tiny/manifest.json says each file is).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <zen/plugin.hpp>

#include "store/store.h"

namespace zen::store {
namespace {

namespace fs = std::filesystem;

class Listing : public ::testing::Test {
 protected:
  void SetUp() override {
    // One directory per test process: CTest runs the cases of this file in parallel.
    dir_ = fs::path(::testing::TempDir()) /
           ("zen_store_listing_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void add_tiny(const std::string& model, const std::string& as) {
    fs::copy_file(fs::path(ZEN_TEST_DATA_DIR) / "models" / "tiny" / (model + ".gguf"),
                  dir_ / (as + ".gguf"));
  }
  fs::path dir_;
};

TEST_F(Listing, ModelsWithArchitectureAndQuantSortedByName) {
  add_tiny("qwen3", "b-qwen");
  add_tiny("llama_f16", "a-llama");
  std::ofstream(dir_ / "notes.txt") << "not a model";
  std::ofstream(dir_ / "c.partial") << "half";

  std::vector<StoreEntry> entries = list_models(dir_);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].name, "a-llama");
  EXPECT_EQ(entries[0].architecture, "llama");
  EXPECT_EQ(entries[0].quant, "F16");
  EXPECT_EQ(entries[0].size, fs::file_size(dir_ / "a-llama.gguf"));
  EXPECT_FALSE(entries[0].error);
  EXPECT_EQ(entries[1].name, "b-qwen");
  EXPECT_EQ(entries[1].architecture, "qwen3");
  EXPECT_EQ(entries[1].quant, "F32");
  EXPECT_EQ(list_partials(dir_), std::vector<std::string>{"c"});
}

TEST_F(Listing, AFileThatIsNotGgufIsListedAsInvalid) {
  std::ofstream(dir_ / "junk.gguf") << "<html>404</html>";
  std::vector<StoreEntry> entries = list_models(dir_);
  ASSERT_EQ(entries.size(), 1u);
  ASSERT_TRUE(entries[0].error);
  EXPECT_NE(entries[0].error->find("magic"), std::string::npos) << *entries[0].error;
}

TEST_F(Listing, AnAbsentDirectoryIsAnEmptyStore) {
  EXPECT_TRUE(list_models(dir_ / "nope").empty());
}

TEST_F(Listing, RemoveDeletesTheModelAndItsPartialOnly) {
  add_tiny("llama", "keep");
  add_tiny("llama", "drop");
  std::ofstream(dir_ / "drop.partial") << "half";
  std::ofstream(dir_ / "drop.partial.json") << "{}";
  std::vector<fs::path> removed = remove_model(dir_, "drop.gguf");
  EXPECT_EQ(removed.size(), 3u);
  EXPECT_FALSE(fs::exists(dir_ / "drop.gguf"));
  EXPECT_FALSE(fs::exists(dir_ / "drop.partial"));
  EXPECT_TRUE(fs::exists(dir_ / "keep.gguf"));
  EXPECT_THROW(remove_model(dir_, "drop"), Error);
  EXPECT_THROW(remove_model(dir_, "../" + dir_.filename().string() + "/keep"), Error);
  EXPECT_TRUE(fs::exists(dir_ / "keep.gguf"));
}

}  // namespace
}  // namespace zen::store
