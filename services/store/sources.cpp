#include "store/sources.h"

#include <cctype>
#include <cstdlib>
#include <vector>

#include <zen/plugin.hpp>

#include "store/url.h"

namespace zen::store {

namespace {

constexpr std::string_view kHfPrefix = "hf://";
constexpr std::string_view kOllamaPrefix = "ollama://";
constexpr std::string_view kHfForm =
    "hf://owner/repo/path/file.gguf[@revision] or hf://owner/repo[@revision]";
constexpr std::string_view kOllamaForm = "ollama://[namespace/]name[:tag]";

[[noreturn]] void bad_source(const std::string& text, std::string_view why) {
  throw Error(ZEN_ERR_INVALID_ARG, "invalid source '" + text + "': " + std::string(why));
}

std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t end = text.find(sep, start);
    parts.emplace_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

std::string without_trailing_slashes(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

std::string stem_of(std::string file_name) {
  if (file_name.ends_with(".gguf")) file_name.resize(file_name.size() - 5);
  return file_name;
}

// Percent-decodes a URL path segment for use as a name ("%20" -> " "); bad escapes stay.
std::string decode_segment(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

bool is_ollama_component(std::string_view s) {
  if (s.empty() || s.front() == '.' || s.front() == '-') return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

Source hugging_face(const std::string& text, const SourceEndpoints& endpoints) {
  std::string_view spec = std::string_view(text).substr(kHfPrefix.size());
  std::string revision = "main";
  if (size_t at = spec.find('@'); at != std::string_view::npos) {
    revision = std::string(spec.substr(at + 1));
    spec = spec.substr(0, at);
    if (revision.empty()) bad_source(text, "empty revision after '@'");
  }
  std::vector<std::string> parts = split(spec, '/');
  if (parts.size() < 2) bad_source(text, "expected " + std::string(kHfForm));
  for (const std::string& part : parts) {
    if (part.empty() || part == "." || part == "..")
      bad_source(text, "empty, '.' or '..' path component; expected " + std::string(kHfForm));
  }
  const std::string endpoint = without_trailing_slashes(endpoints.hugging_face);
  const std::string repo = encode_path_segment(parts[0]) + "/" + encode_path_segment(parts[1]);
  std::string url = endpoint + "/" + repo + "/resolve/" + encode_path_segment(revision);
  Source source;
  if (parts.size() == 2) {  // the whole repository
    source.kind = SourceKind::kHuggingFaceRepo;
    source.url = endpoint + "/api/models/" + repo + "/tree/" + encode_path_segment(revision);
    source.blob_url_prefix = url + "/";
    source.default_name = parts[1];
    return source;
  }
  for (size_t i = 2; i < parts.size(); ++i) url += "/" + encode_path_segment(parts[i]);
  source.kind = SourceKind::kHuggingFace;
  source.url = url;
  source.default_name = stem_of(parts.back());
  return source;
}

Source ollama(const std::string& text, const SourceEndpoints& endpoints) {
  std::string_view spec = std::string_view(text).substr(kOllamaPrefix.size());
  std::string tag = "latest";
  size_t colon = spec.rfind(':');
  if (colon != std::string_view::npos && spec.find('/', colon) == std::string_view::npos) {
    tag = std::string(spec.substr(colon + 1));
    spec = spec.substr(0, colon);
  }
  std::vector<std::string> parts = split(spec, '/');
  if (parts.size() == 1) parts.insert(parts.begin(), "library");
  if (parts.size() != 2) bad_source(text, "expected " + std::string(kOllamaForm));
  for (const std::string& part : parts) {
    if (!is_ollama_component(part))
      bad_source(text, "'" + part + "' is not a model name; expected " + std::string(kOllamaForm));
  }
  if (!is_ollama_component(tag)) bad_source(text, "'" + tag + "' is not a tag");
  std::string base =
      without_trailing_slashes(endpoints.ollama) + "/v2/" + parts[0] + "/" + parts[1];
  Source source;
  source.kind = SourceKind::kOllama;
  source.url = base + "/manifests/" + tag;
  source.blob_url_prefix = base + "/blobs/";
  source.default_name = parts[1] + "-" + tag;
  return source;
}

Source web(const std::string& text) {
  Url url = parse_url(text);
  Source source;
  source.kind = SourceKind::kUrl;
  source.url = url.str();
  std::string path = url.target.substr(0, url.target.find('?'));
  source.default_name = stem_of(decode_segment(path.substr(path.rfind('/') + 1)));
  return source;
}

}  // namespace

SourceEndpoints endpoints_from_environment() {
  SourceEndpoints endpoints;
  if (const char* hf = std::getenv("ZEN_HF_ENDPOINT"); hf && *hf) endpoints.hugging_face = hf;
  if (const char* ol = std::getenv("ZEN_OLLAMA_ENDPOINT"); ol && *ol) endpoints.ollama = ol;
  return endpoints;
}

Source parse_source(const std::string& text, const SourceEndpoints& endpoints) {
  if (text.empty()) bad_source(text, "empty");
  if (text.starts_with(kHfPrefix)) return hugging_face(text, endpoints);
  if (text.starts_with(kOllamaPrefix)) return ollama(text, endpoints);
  if (text.starts_with("http://") || text.starts_with("https://")) return web(text);
  if (size_t sep = text.find("://"); sep != std::string::npos && text.find('/') > sep)
    bad_source(text, "unsupported scheme; use a path, http(s)://, hf:// or ollama://");
  Source source;
  source.kind = SourceKind::kLocalFile;
  source.path = text;
  source.default_name = stem_of(source.path.filename().string());
  return source;
}

}  // namespace zen::store
