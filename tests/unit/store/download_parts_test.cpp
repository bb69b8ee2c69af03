// The pieces a download is built from: Content-Range parsing, SHA-256 (FIPS 180-2 test
// vectors), and the sizes the progress bar prints.
#include <gtest/gtest.h>

#include <string>

#include "store/download.h"
#include "store/sha256.h"
#include "text/progress.h"

namespace zen::store {
namespace {

TEST(ContentRange, RangesAndUnsatisfiedForm) {
  auto r = parse_content_range("bytes 100-199/200");
  ASSERT_TRUE(r);
  EXPECT_EQ(*r->first, 100u);
  EXPECT_EQ(*r->last, 199u);
  EXPECT_EQ(*r->total, 200u);

  auto open_total = parse_content_range("bytes 0-9/*");
  ASSERT_TRUE(open_total);
  EXPECT_FALSE(open_total->total);

  auto unsatisfied = parse_content_range("bytes */4096");
  ASSERT_TRUE(unsatisfied);
  EXPECT_FALSE(unsatisfied->first);
  EXPECT_EQ(*unsatisfied->total, 4096u);

  for (const char* bad : {"", "bytes", "items 0-1/2", "bytes 5-4/10", "bytes 0-10/10", "bytes */*",
                          "bytes -1-2/3", "bytes 1-2", "bytes a-b/c"})
    EXPECT_FALSE(parse_content_range(bad)) << bad;
}

TEST(Sha256, KnownVectorsInOneOrManyPieces) {
  Sha256 sha;
  EXPECT_EQ(sha.hex_digest(), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  sha.update(std::string_view("abc"));
  EXPECT_EQ(sha.hex_digest(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  std::string text = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  for (char c : text) sha.update(std::span<const char>(&c, 1));
  EXPECT_EQ(sha.hex_digest(), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, HexChecks) {
  EXPECT_TRUE(is_sha256_hex(std::string(64, 'A')));
  EXPECT_FALSE(is_sha256_hex(std::string(63, 'a')));
  EXPECT_FALSE(is_sha256_hex(std::string(63, 'a') + "g"));
  EXPECT_EQ(lower_hex("ABCdef"), "abcdef");
}

TEST(Progress, ByteSizes) {
  EXPECT_EQ(text::format_bytes(0), "0 B");
  EXPECT_EQ(text::format_bytes(1023), "1023 B");
  EXPECT_EQ(text::format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(text::format_bytes(253104096ull), "241.4 MiB");
}

}  // namespace
}  // namespace zen::store
