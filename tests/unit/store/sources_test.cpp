#include <gtest/gtest.h>

#include <zen/plugin.hpp>

#include "store/sources.h"

namespace zen::store {
namespace {

SourceEndpoints local_endpoints() { return {"http://127.0.0.1:1234/hf/", "http://127.0.0.1:1234"}; }

TEST(Sources, HuggingFaceFileOnMainOrARevision) {
  Source s = parse_source("hf://unsloth/gemma-3-270m-it-GGUF/gemma-3-270m-it-Q4_K_M.gguf", {});
  EXPECT_EQ(s.kind, SourceKind::kHuggingFace);
  EXPECT_EQ(s.url,
            "https://huggingface.co/unsloth/gemma-3-270m-it-GGUF/resolve/main/"
            "gemma-3-270m-it-Q4_K_M.gguf");
  EXPECT_EQ(s.default_name, "gemma-3-270m-it-Q4_K_M");

  Source r = parse_source("hf://o/r/sub dir/m.gguf@refs/pr/1", local_endpoints());
  EXPECT_EQ(r.url, "http://127.0.0.1:1234/hf/o/r/resolve/refs%2Fpr%2F1/sub%20dir/m.gguf");
  EXPECT_EQ(r.default_name, "m");
}

TEST(Sources, HuggingFaceNeedsOwnerAndRepo) {
  for (const char* bad : {"hf://o", "hf://o//f.gguf", "hf://o/r/../f.gguf", "hf://o/r/f.gguf@",
                          "hf://o/r@", "hf://../r", "hf://o/.."})
    EXPECT_THROW(parse_source(bad, {}), Error) << bad;
}

// Owner and repository alone: the whole safetensors repository, listed through the Hub API.
TEST(Sources, HuggingFaceRepositoryOnMainOrARevision) {
  Source s = parse_source("hf://Qwen/Qwen3-0.6B", {});
  EXPECT_EQ(s.kind, SourceKind::kHuggingFaceRepo);
  EXPECT_EQ(s.url, "https://huggingface.co/api/models/Qwen/Qwen3-0.6B/tree/main");
  EXPECT_EQ(s.blob_url_prefix, "https://huggingface.co/Qwen/Qwen3-0.6B/resolve/main/");
  EXPECT_EQ(s.default_name, "Qwen3-0.6B");

  Source r = parse_source("hf://o/r@refs/pr/2", local_endpoints());
  EXPECT_EQ(r.url, "http://127.0.0.1:1234/hf/api/models/o/r/tree/refs%2Fpr%2F2");
  EXPECT_EQ(r.blob_url_prefix, "http://127.0.0.1:1234/hf/o/r/resolve/refs%2Fpr%2F2/");
}

TEST(Sources, OllamaDefaultsToLibraryAndLatest) {
  Source s = parse_source("ollama://gemma3", {});
  EXPECT_EQ(s.kind, SourceKind::kOllama);
  EXPECT_EQ(s.url, "https://registry.ollama.ai/v2/library/gemma3/manifests/latest");
  EXPECT_EQ(s.blob_url_prefix, "https://registry.ollama.ai/v2/library/gemma3/blobs/");
  EXPECT_EQ(s.default_name, "gemma3-latest");

  Source t = parse_source("ollama://someone/tiny:270m-q4", local_endpoints());
  EXPECT_EQ(t.url, "http://127.0.0.1:1234/v2/someone/tiny/manifests/270m-q4");
  EXPECT_EQ(t.default_name, "tiny-270m-q4");
}

TEST(Sources, OllamaRefusesPathsAndOddCharacters) {
  for (const char* bad : {"ollama://", "ollama://a/b/c", "ollama://../x",
                          "ollama://x:", "ollama://x:../y", "ollama://x?y"})
    EXPECT_THROW(parse_source(bad, {}), Error) << bad;
}

TEST(Sources, UrlsTakeTheirFileNameAsName) {
  Source s = parse_source("https://example.com/models/My%20Model.gguf?sig=1", {});
  EXPECT_EQ(s.kind, SourceKind::kUrl);
  EXPECT_EQ(s.default_name, "My Model");
  EXPECT_EQ(parse_source("http://example.com/", {}).default_name, "");
}

TEST(Sources, EverythingElseIsALocalPathOrAnUnknownScheme) {
  Source s = parse_source("/tmp/dir/tiny.gguf", {});
  EXPECT_EQ(s.kind, SourceKind::kLocalFile);
  EXPECT_EQ(s.default_name, "tiny");
  EXPECT_THROW(parse_source("s3://bucket/x.gguf", {}), Error);
  EXPECT_THROW(parse_source("", {}), Error);
}

}  // namespace
}  // namespace zen::store
