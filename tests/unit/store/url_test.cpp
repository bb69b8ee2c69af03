#include <gtest/gtest.h>

#include <zen/plugin.hpp>

#include "store/url.h"

namespace zen::store {
namespace {

TEST(Url, SplitsSchemeHostPortAndTarget) {
  Url u = parse_url("https://huggingface.co/a/b/resolve/main/x.gguf?download=1#frag");
  EXPECT_EQ(u.scheme, "https");
  EXPECT_EQ(u.host, "huggingface.co");
  EXPECT_EQ(u.port, "443");
  EXPECT_EQ(u.target, "/a/b/resolve/main/x.gguf?download=1");
  EXPECT_TRUE(u.tls());
  EXPECT_EQ(u.authority(), "huggingface.co");

  Url v = parse_url("HTTP://127.0.0.1:8080");
  EXPECT_EQ(v.scheme, "http");
  EXPECT_EQ(v.port, "8080");
  EXPECT_EQ(v.target, "/");
  EXPECT_EQ(v.str(), "http://127.0.0.1:8080/");

  Url w = parse_url("http://[::1]:9/x");
  EXPECT_EQ(w.host, "::1");
  EXPECT_EQ(w.authority(), "[::1]:9");
}

TEST(Url, RefusesWhatIsNotAnHttpUrl) {
  for (const char* bad :
       {"ftp://x/y", "huggingface.co/x", "http://", "http://:80/x", "http://h:0/",
        "http://h:70000/", "http://h:8a/", "http://u:p@h/x", "http://h/a b", "http://[::1/x"}) {
    EXPECT_THROW(parse_url(bad), Error) << bad;
  }
}

TEST(Url, DotSegmentsAreRemoved) {
  EXPECT_EQ(parse_url("http://h/a/./b/../c").target, "/a/c");
  EXPECT_EQ(parse_url("http://h/../../etc").target, "/etc");
}

TEST(Url, LocationsResolveAgainstTheBase) {
  Url base = parse_url("https://hub.example/o/r/resolve/main/dir/f.gguf?x=1");
  EXPECT_EQ(resolve_location(base, "https://cdn.example/blob?sig=2").str(),
            "https://cdn.example/blob?sig=2");
  EXPECT_EQ(resolve_location(base, "//cdn.example/blob").str(), "https://cdn.example/blob");
  EXPECT_EQ(resolve_location(base, "/api/f").str(), "https://hub.example/api/f");
  EXPECT_EQ(resolve_location(base, "g.gguf").str(),
            "https://hub.example/o/r/resolve/main/dir/g.gguf");
  EXPECT_EQ(resolve_location(base, "../other/g").str(),
            "https://hub.example/o/r/resolve/main/other/g");
  EXPECT_EQ(resolve_location(base, "?y=2").str(),
            "https://hub.example/o/r/resolve/main/dir/f.gguf?y=2");
  EXPECT_THROW(resolve_location(base, "/a\r\nInjected: 1"), Error);
}

TEST(Url, PathSegmentsArePercentEncoded) {
  EXPECT_EQ(encode_path_segment("refs/pr/1"), "refs%2Fpr%2F1");
  EXPECT_EQ(encode_path_segment("a b~c.gguf"), "a%20b~c.gguf");
  EXPECT_EQ(encode_path_segment("\xc3\xa9"), "%C3%A9");
}

}  // namespace
}  // namespace zen::store
