#include "store/pull.h"

#include <cstdlib>
#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>
#include <zen/plugin.hpp>

#include "gguf/gguf.h"
#include "store/download.h"
#include "store/hf_repo.h"
#include "store/partial_file.h"
#include "store/sha256.h"
#include "store/store.h"
#include "text/progress.h"

namespace zen::store {

namespace fs = std::filesystem;

namespace {

constexpr const char* kManifestMediaType = "application/vnd.docker.distribution.manifest.v2+json";
constexpr std::string_view kModelLayerMediaType = "application/vnd.ollama.image.model";
constexpr std::string_view kDigestPrefix = "sha256:";

[[noreturn]] void fail(zen_status status, const std::string& message) {
  throw Error(status, message);
}

struct ExpectedDigest {
  std::string from;  // where the expectation comes from, for the mismatch message
  std::string hex;
};

struct OllamaLayer {
  std::string sha256;
  std::optional<uint64_t> size;
};

OllamaLayer model_layer(const std::string& manifest, const std::string& url) {
  nlohmann::json j = nlohmann::json::parse(manifest, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) fail(ZEN_ERR_IO, "the manifest at " + url + " is not a JSON object");
  auto layers = j.find("layers");
  if (layers == j.end() || !layers->is_array())
    fail(ZEN_ERR_IO, "the manifest at " + url + " has no \"layers\" array");
  for (const nlohmann::json& layer : *layers) {
    if (!layer.is_object()) continue;
    auto media = layer.find("mediaType");
    if (media == layer.end() || !media->is_string() ||
        media->get<std::string>() != kModelLayerMediaType)
      continue;
    auto digest = layer.find("digest");
    std::string text =
        digest != layer.end() && digest->is_string() ? digest->get<std::string>() : "";
    std::string hex = text.starts_with(kDigestPrefix) ? text.substr(kDigestPrefix.size()) : "";
    if (!is_sha256_hex(hex))
      fail(ZEN_ERR_IO, "the manifest at " + url + " has a model layer without a sha256 digest");
    OllamaLayer result{lower_hex(hex), std::nullopt};
    if (auto size = layer.find("size"); size != layer.end() && size->is_number_unsigned())
      result.size = size->get<uint64_t>();
    return result;
  }
  fail(ZEN_ERR_NOT_FOUND, "the manifest at " + url + " has no model layer (mediaType " +
                              std::string(kModelLayerMediaType) + ")");
}

void copy_local(const fs::path& from, PartialFile& partial, text::Progress& progress) {
  std::ifstream in(from, std::ios::binary);
  if (!in) fail(ZEN_ERR_IO, "cannot read " + from.string());
  partial.truncate();
  std::error_code ec;
  uint64_t size = fs::file_size(from, ec);
  progress.start(0, ec ? std::nullopt : std::optional(size));
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    auto n = static_cast<size_t>(in.gcount());
    if (n == 0) break;
    partial.append({buffer.data(), n});
    progress.update(partial.size());
  }
  if (in.bad()) fail(ZEN_ERR_IO, "error reading " + from.string());
  progress.finish();
}

// Fetches the source into `partial`; returns the content's sha256 and adds what the source
// itself says the digest must be to `expected`.
std::string fetch(const Source& source, const PullOptions& options, PartialFile& partial,
                  text::Progress& progress, std::vector<ExpectedDigest>& expected) {
  switch (source.kind) {
    case SourceKind::kLocalFile:
      copy_local(source.path, partial, progress);
      return partial.sha256();
    case SourceKind::kUrl:
      return download(parse_url(source.url), {}, options.http, partial, progress).sha256;
    case SourceKind::kHuggingFace: {
      DownloadResult r =
          download(parse_url(source.url), hugging_face_headers(), options.http, partial, progress);
      if (!r.source_sha256.empty())
        expected.push_back({"the Hub's X-Linked-Etag", r.source_sha256});
      return r.sha256;
    }
    case SourceKind::kOllama: {
      std::string manifest =
          http_get_text(parse_url(source.url), {{"Accept", kManifestMediaType}}, options.http);
      OllamaLayer layer = model_layer(manifest, source.url);
      expected.push_back({"the manifest's layer digest", layer.sha256});
      Url blob = parse_url(source.blob_url_prefix + std::string(kDigestPrefix) + layer.sha256);
      DownloadResult r = download(blob, {}, options.http, partial, progress);
      if (layer.size && r.size != *layer.size) {
        partial.discard();
        fail(ZEN_ERR_IO, "blob " + blob.str() + " has " + std::to_string(r.size) +
                             " bytes, the manifest says " + std::to_string(*layer.size) +
                             "; the download was deleted");
      }
      return r.sha256;
    }
    case SourceKind::kHuggingFaceRepo:
      break;  // pull_hf_repo
  }
  fail(ZEN_ERR_INTERNAL, "unknown source kind");
}

}  // namespace

PullResult pull(const std::string& source_text, const fs::path& dir, const PullOptions& options,
                std::ostream& log) {
  Source source = parse_source(source_text, options.endpoints);
  if (!options.name && source.default_name.empty())
    fail(ZEN_ERR_INVALID_ARG, "cannot derive a model name from '" + source_text + "'; give --name");
  if (source.kind == SourceKind::kHuggingFaceRepo)
    return pull_hf_repo(source, checked_name(options.name.value_or(source.default_name)), dir,
                        options, log);
  PullResult result;
  result.name = checked_name(options.name.value_or(source.default_name));
  result.path = model_path(dir, result.name);

  std::vector<ExpectedDigest> expected;
  if (options.sha256) {
    if (!is_sha256_hex(*options.sha256))
      fail(ZEN_ERR_INVALID_ARG, "--sha256 must be 64 hex digits, got '" + *options.sha256 + "'");
    expected.push_back({"--sha256", lower_hex(*options.sha256)});
  }
  std::error_code ec;
  if (!options.force && fs::exists(result.path, ec)) {
    result.already_present = true;
    result.size = fs::file_size(result.path, ec);
    return result;
  }
  if (source.kind == SourceKind::kLocalFile && !fs::is_regular_file(source.path, ec))
    fail(ZEN_ERR_NOT_FOUND, "no such file '" + source_text +
                                "' (URLs start with http://, https://, hf:// or ollama://)");

  PartialFile partial(dir, result.name);
  text::Progress progress(log, result.name, options.interactive_progress);
  try {
    result.sha256 = fetch(source, options, partial, progress, expected);
  } catch (const Error& e) {
    if (partial.size() == 0) {
      partial.discard();
      throw;
    }
    throw Error(e.status, e.message + " [" + std::to_string(partial.size()) + " bytes kept in " +
                              partial.path().string() + ": run the same pull again to resume]");
  }
  result.size = partial.size();

  for (const ExpectedDigest& want : expected) {
    if (want.hex != result.sha256) {
      partial.discard();
      fail(ZEN_ERR_IO, "sha256 mismatch for '" + result.name + "': expected " + want.hex + " (" +
                           want.from + "), got " + result.sha256 + "; the download was deleted");
    }
  }
  result.verified = !expected.empty();
  try {
    gguf::File::open(partial.path().string());
  } catch (const gguf::Error& e) {
    partial.discard();
    fail(ZEN_ERR_INVALID_ARG, "'" + source_text + "' is not a usable GGUF file (" + e.what() +
                                  "); the download was deleted");
  }
  partial.commit(result.path);
  return result;
}

}  // namespace zen::store
