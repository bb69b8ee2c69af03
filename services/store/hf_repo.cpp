#include "store/hf_repo.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <zen/plugin.hpp>

#include "safetensors/checkpoint.h"
#include "store/download.h"
#include "store/partial_file.h"
#include "store/sha256.h"
#include "text/progress.h"

namespace zen::store {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The small files a model directory may use besides its weights.
const std::set<std::string, std::less<>> kModelFiles = {
    "config.json",           "generation_config.json",  "tokenizer.json",
    "tokenizer_config.json", "special_tokens_map.json", "tokenizer.model",
    "chat_template.jinja",   "chat_template.json",      "model.safetensors.index.json"};

[[noreturn]] void fail(zen_status status, const std::string& message) {
  throw Error(status, message);
}

struct RepoFile {
  std::string name;
  uint64_t size = 0;
  std::string sha256;   // LFS files: the content's sha256
  std::string git_oid;  // others: the git blob id
};

std::vector<RepoFile> list_files(const Source& source, const PullOptions& options) {
  const std::string text =
      http_get_text(parse_url(source.url), hugging_face_headers(), options.http);
  const json listing = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!listing.is_array())
    fail(ZEN_ERR_IO, "the file listing at " + source.url + " is not a JSON array");
  std::vector<RepoFile> files;
  for (const json& e : listing) {
    if (!e.is_object() || e.value("type", "") != "file") continue;
    const json path = e.value("path", json()), size = e.value("size", json());
    if (!path.is_string() || !size.is_number_unsigned()) continue;
    RepoFile f{path.get<std::string>(), size.get<uint64_t>(), "", ""};
    if (f.name.find('/') != std::string::npos || f.name.empty() || f.name.front() == '.') continue;
    if (const json lfs = e.value("lfs", json()); lfs.is_object()) {
      const std::string oid = lfs.value("oid", "");
      f.sha256 = is_sha256_hex(oid) ? lower_hex(oid) : "";
      if (f.sha256.empty()) fail(ZEN_ERR_IO, "the listing gives " + f.name + " no LFS sha256");
    } else {
      f.git_oid = e.value("oid", "");
    }
    files.push_back(std::move(f));
  }
  return files;
}

std::string git_blob_sha1(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  const std::string body = text.str();
  const std::string blob = "blob " + std::to_string(body.size()) + std::string(1, '\0') + body;
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(blob.data(), blob.size(), digest, &n, EVP_sha1(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < n; ++i) hex += {kHex[digest[i] >> 4], kHex[digest[i] & 15]};
  return hex;
}

// Why `file` (complete, f.size bytes expected) does not match the listing, or "".
std::string mismatch(const RepoFile& f, const fs::path& file, const std::string& sha256) {
  std::error_code ec;
  const uint64_t size = fs::file_size(file, ec);
  if (ec || size != f.size)
    return f.name + " has " + std::to_string(size) + " bytes, the listing says " +
           std::to_string(f.size);
  if (!f.sha256.empty() && sha256 != f.sha256)
    return "sha256 mismatch for " + f.name + ": expected " + f.sha256 +
           " (the Hub's listing), got " + sha256;
  if (f.sha256.empty() && !f.git_oid.empty() && git_blob_sha1(file) != f.git_oid)
    return f.name + " is not the git blob " + f.git_oid + " the listing names";
  return "";
}

std::string sha256_of(const fs::path& file) {
  Sha256 sha;
  std::ifstream in(file, std::ios::binary);
  std::vector<char> buf(1 << 20);
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0)
    sha.update({buf.data(), static_cast<size_t>(in.gcount())});
  return sha.hex_digest();
}

// One file into staging/NAME, resuming its partial; a finished file that still verifies is
// kept as it is.
void fetch_file(const Source& source, const RepoFile& f, const fs::path& staging,
                const PullOptions& options, const std::string& label, std::ostream& log) {
  const fs::path target = staging / f.name;
  if (fs::exists(target) && mismatch(f, target, f.sha256.empty() ? "" : sha256_of(target)).empty())
    return;
  PartialFile partial(staging, f.name);
  text::Progress progress(log, label + "/" + f.name, options.interactive_progress);
  DownloadResult r;
  try {
    r = download(parse_url(source.blob_url_prefix + encode_path_segment(f.name)),
                 hugging_face_headers(), options.http, partial, progress);
  } catch (const Error& e) {
    if (partial.size() == 0) partial.discard();
    throw Error(e.status, e.message + (partial.size() ? " [" + std::to_string(partial.size()) +
                                                            " bytes kept: run the same pull "
                                                            "again to resume]"
                                                      : ""));
  }
  std::string why = mismatch(f, partial.path(), r.sha256);
  if (why.empty() && !r.source_sha256.empty() && r.source_sha256 != r.sha256)
    why = "sha256 mismatch for " + f.name + ": the Hub's X-Linked-Etag says " + r.source_sha256;
  if (!why.empty()) {
    partial.discard();
    fail(ZEN_ERR_IO, why + "; the download was deleted");
  }
  partial.commit(target);
}

const RepoFile* find(const std::vector<RepoFile>& files, std::string_view name) {
  auto it =
      std::find_if(files.begin(), files.end(), [&](const RepoFile& f) { return f.name == name; });
  return it == files.end() ? nullptr : &*it;
}

// The shards model.safetensors.index.json names.
std::set<std::string> indexed_shards(const fs::path& index) {
  std::ifstream in(index);
  const json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
  std::set<std::string> shards;
  if (j.is_object() && j.contains("weight_map") && j["weight_map"].is_object())
    for (const auto& [tensor, shard] : j["weight_map"].items())
      if (shard.is_string()) shards.insert(shard.get<std::string>());
  if (shards.empty()) fail(ZEN_ERR_IO, index.string() + " names no shards");
  return shards;
}

}  // namespace

Headers hugging_face_headers() {
  Headers headers;
  if (const char* token = std::getenv("HF_TOKEN"); token && *token)
    headers.emplace_back("Authorization", std::string("Bearer ") + token);
  return headers;
}

PullResult pull_hf_repo(const Source& source, const std::string& name, const fs::path& dir,
                        const PullOptions& options, std::ostream& log) {
  if (options.sha256)
    fail(ZEN_ERR_INVALID_ARG,
         "--sha256 names one file's digest; a repository's files are "
         "verified against the Hub's listing");
  PullResult result;
  result.name = name;
  result.path = dir / name;
  std::error_code ec;
  if (!options.force && fs::is_regular_file(result.path / "config.json", ec)) {
    result.already_present = true;
    return result;
  }
  const std::vector<RepoFile> files = list_files(source, options);
  if (!find(files, "config.json"))
    fail(ZEN_ERR_NOT_FOUND, source.url +
                                " lists no config.json: not a model repository in "
                                "Hugging Face's layout (a GGUF repository: pull "
                                "hf://owner/repo/file.gguf)");
  const fs::path staging = dir / (name + ".partial");
  fs::create_directories(staging);
  std::vector<const RepoFile*> wanted;
  std::set<std::string> shards;
  size_t n_weights = 0;
  if (const RepoFile* index = find(files, "model.safetensors.index.json")) {
    fetch_file(source, *index, staging, options, name, log);
    shards = indexed_shards(staging / index->name);
  }
  for (const RepoFile& f : files) {
    const bool weights = shards.empty() ? f.name.ends_with(".safetensors") : shards.count(f.name);
    if (weights || (kModelFiles.count(f.name) && f.name != "model.safetensors.index.json"))
      wanted.push_back(&f);
    n_weights += weights ? 1 : 0;
  }
  if (n_weights == 0)
    fail(ZEN_ERR_NOT_FOUND, source.url +
                                " lists no .safetensors weights (a GGUF repository: "
                                "pull hf://owner/repo/file.gguf)");
  for (const std::string& shard : shards)
    if (!find(files, shard))
      fail(ZEN_ERR_NOT_FOUND,
           "model.safetensors.index.json names " + shard + ", which the repository does not list");
  for (const RepoFile* f : wanted) fetch_file(source, *f, staging, options, name, log);

  try {  // the directory must load: its shards and index are validated as a model load does
    safetensors::Checkpoint::open(staging);
  } catch (const std::exception& e) {
    fail(ZEN_ERR_INVALID_ARG, std::string("the fetched weights do not load: ") + e.what());
  }
  if (fs::exists(result.path, ec)) fs::remove_all(result.path);
  fs::rename(staging, result.path);
  fsync_directory(dir);
  result.files = static_cast<uint32_t>(wanted.size() + (shards.empty() ? 0 : 1));
  for (const fs::directory_entry& e : fs::directory_iterator(result.path))
    result.size += e.file_size(ec);
  result.verified = true;
  return result;
}

}  // namespace zen::store
