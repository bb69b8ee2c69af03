// The safetensors reader against the reference writer's own files (tests/data/safetensors,
// written by the `safetensors` package: tools/make_safetensors_fixtures.py): every tensor's
// dtype, shape and values, metadata, and a sharded checkpoint with its index. Then hostile
// files built here byte by byte, each refused with a message that names the problem.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <zen/half.hpp>

#include "safetensors/checkpoint.h"

namespace zen::safetensors {
namespace {

namespace fs = std::filesystem;
const fs::path kDir = fs::path(ZEN_TEST_DATA_DIR) / "safetensors";

nlohmann::json expected() {
  std::ifstream in(kDir / "expected.json");
  return nlohmann::json::parse(in);
}

double value_at(const Tensor& t, uint64_t i) {
  const uint8_t* p = t.data.data() + i * dtype_size(t.dtype);
  switch (t.dtype) {
    case DType::kF32: {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case DType::kF16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return zen::quant::half_to_float(h);
    }
    case DType::kI64: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return static_cast<double>(v);
    }
    case DType::kI8:
      return static_cast<int8_t>(*p);
    case DType::kBool:
    case DType::kU8:
      return *p;
    default:
      ADD_FAILURE() << "no decoder for " << dtype_name(t.dtype);
      return 0;
  }
}

void expect_tensor(const Tensor* t, const std::string& name, const nlohmann::json& want) {
  ASSERT_NE(t, nullptr) << name;
  EXPECT_EQ(dtype_name(t->dtype), want.at("dtype").get<std::string>()) << name;
  EXPECT_EQ(t->shape, want.at("shape").get<std::vector<uint64_t>>()) << name;
  const std::vector<double> values = want.at("values").get<std::vector<double>>();
  ASSERT_EQ(t->n_elements, values.size()) << name;
  for (uint64_t i = 0; i < t->n_elements; ++i) EXPECT_EQ(value_at(*t, i), values[i]) << name;
}

TEST(SafetensorsFile, ReadsTheReferenceWritersFile) {
  const File f = File::open((kDir / "tiny.safetensors").string());
  const nlohmann::json want = expected().at("tiny.safetensors");
  EXPECT_EQ(f.tensors().size(), want.size());
  for (const auto& [name, w] : want.items()) expect_tensor(f.find(name), name, w);
  EXPECT_EQ(f.metadata().at("format"), "pt");
  EXPECT_EQ(f.find("model.nope"), nullptr);
}

TEST(SafetensorsCheckpoint, ReadsAShardedDirectoryAndASingleFile) {
  const Checkpoint c = Checkpoint::open(kDir / "sharded");
  const nlohmann::json want = expected().at("sharded");
  EXPECT_EQ(c.files().size(), 2u);
  EXPECT_EQ(c.tensors().size(), want.size());
  for (const auto& [name, w] : want.items()) expect_tensor(c.find(name), name, w);
  EXPECT_EQ(c.metadata().at("format"), "pt");
  EXPECT_FALSE(c.metadata().at("total_size").empty());
  const Checkpoint single = Checkpoint::open(kDir / "tiny.safetensors");
  EXPECT_NE(single.find("model.embed.weight"), nullptr);
}

// A file: the header text (padded as the reference does) and `data` bytes of tensor data.
std::vector<uint8_t> file_bytes(const std::string& header, size_t data, uint64_t length = 0) {
  std::vector<uint8_t> b(8);
  const uint64_t n = length ? length : header.size();
  for (int i = 0; i < 8; ++i) b[static_cast<size_t>(i)] = static_cast<uint8_t>(n >> (8 * i));
  b.insert(b.end(), header.begin(), header.end());
  b.resize(b.size() + data, 0);
  return b;
}

std::string refusal(const std::vector<uint8_t>& bytes, const Limits& limits = {}) {
  try {
    File::parse(bytes, "test.safetensors", limits);
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

std::string one(const std::string& body) { return "{\"t\":" + body + "}"; }
const std::string kF32x2 = R"({"dtype":"F32","shape":[2],"data_offsets":[0,8]})";

TEST(SafetensorsFile, RefusesHostileHeadersNamingWhy) {
  EXPECT_EQ(refusal(file_bytes(one(kF32x2), 8)), "accepted");
  const std::vector<std::pair<std::vector<uint8_t>, std::string>> cases = {
      {std::vector<uint8_t>(5, 0), "shorter than the 8-byte header length"},
      {file_bytes(one(kF32x2), 8, 1 << 20), "runs past the end of the file"},
      {file_bytes("{not json", 0), "not valid JSON"},
      {file_bytes("[1,2]", 0), "not a JSON object"},
      {file_bytes(R"({"t":)" + kF32x2 + R"(,"t":)" + kF32x2 + "}", 8), "names 't' twice"},
      {file_bytes(one(R"({"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":1})"), 8),
       "unknown member 'x'"},
      {file_bytes(one(R"({"dtype":"F33","shape":[2],"data_offsets":[0,8]})"), 8),
       "unknown dtype 'F33'"},
      {file_bytes(one(R"({"dtype":"F32","shape":[-2],"data_offsets":[0,8]})"), 8),
       "must be a non-negative integer"},
      {file_bytes(one(R"({"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]})"),
                  8),
       "overflows 64 bits"},
      {file_bytes(one(R"({"dtype":"F32","shape":[3],"data_offsets":[0,8]})"), 8),
       "8 bytes for 3 elements of F32"},
      {file_bytes(one(R"({"dtype":"F32","shape":[2],"data_offsets":[0,16]})"), 8),
       "do not lie within the 8 data bytes"},
      {file_bytes(one(R"({"dtype":"F32","shape":[2],"data_offsets":[8,0]})"), 8),
       "do not lie within"},
      {file_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                  R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                  8),
       "inside the tensor before it"},
      {file_bytes(one(R"({"dtype":"F32","shape":[1],"data_offsets":[4,8]})"), 8),
       "leaving a hole after byte 0"},
      {file_bytes(one(kF32x2), 12), "4 bytes after the last tensor belong to none"},
      {file_bytes(R"({"__metadata__":{"format":1}})", 0), "'__metadata__.format' is not a string"},
      {file_bytes(one(R"({"dtype":"F32","shape":[1,1,1,1,1,1,1,1,1],"data_offsets":[0,4]})"), 4),
       "rank 9 is above 8"},
      {file_bytes(R"({"t":{"dtype":"F32","shape":[[[[[1]]]]],"data_offsets":[0,4]}})", 4),
       "nests deeper"},
  };
  for (const auto& [bytes, why] : cases) {
    const std::string got = refusal(bytes);
    EXPECT_NE(got.find(why), std::string::npos) << "want '" << why << "', got '" << got << "'";
    EXPECT_EQ(got.rfind("test.safetensors: ", 0), 0u) << got;  // names the file first
  }
  Limits small;
  small.max_header_bytes = 16;
  EXPECT_NE(refusal(file_bytes(one(kF32x2), 8), small).find("above the limit of 16 bytes"),
            std::string::npos);
}

// A copy of the sharded fixture in a temporary directory, with its index replaced.
fs::path sharded_with_index(const std::string& index, const std::string& tag) {
  const fs::path dir = fs::temp_directory_path() / ("zen-safetensors-" + tag);
  fs::remove_all(dir);
  fs::copy(kDir / "sharded", dir);
  std::ofstream(dir / "model.safetensors.index.json") << index;
  return dir;
}

std::string checkpoint_refusal(const fs::path& dir) {
  try {
    Checkpoint::open(dir);
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(SafetensorsCheckpoint, RefusesIndexesThatDoNotMatchTheShards) {
  const std::string s1 = "model-00001-of-00002.safetensors",
                    s2 = "model-00002-of-00002.safetensors";
  auto index = [&](const std::string& extra, const std::string& head_shard) {
    return R"({"weight_map":{"layers.0.weight":")" + s1 + R"(","layers.0.bias":")" + s1 +
           R"(","layers.1.weight":")" + s2 + R"(","lm_head.weight":")" + head_shard + "\"" + extra +
           "}}";
  };
  EXPECT_EQ(checkpoint_refusal(sharded_with_index(index("", s2), "ok")), "accepted");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {index(R"(,"x":"../secret.safetensors")", s2), "is not a file name in the directory"},
      {index(R"(,"ghost.weight":")" + s1 + "\"", s2), "'ghost.weight' is listed in"},
      {index("", s1), "is listed in " + s1 + " but lives in " + s2},
      {R"({"weight_map":{"layers.0.weight":")" + s1 + R"("}})", "is not in the index"},
      {R"({"weight_map": 3})", "not an index"},
  };
  int i = 0;
  for (const auto& [text, why] : cases) {
    const std::string got = checkpoint_refusal(sharded_with_index(text, std::to_string(i++)));
    EXPECT_NE(got.find(why), std::string::npos) << "want '" << why << "', got '" << got << "'";
  }
  EXPECT_NE(checkpoint_refusal(fs::temp_directory_path()).find("no model.safetensors"),
            std::string::npos);
}

}  // namespace
}  // namespace zen::safetensors
