// zen-engine pull / list / rm: the model store (services/store). Errors propagate to main as one
// line (exit 1); option errors exit 2.
#include <unistd.h>

#include <algorithm>
#include <iomanip>
#include <iostream>

#include <nlohmann/json.hpp>

#include "options.h"
#include "store/pull.h"
#include "store/store.h"
#include "text/progress.h"

namespace zen::cli {

namespace {

constexpr const char* kPullUsage =
    "usage: zen-engine pull SRC [--name NAME] [--sha256 HEX] [--force]\n"
    "SRC: a local .gguf path, an http:// or https:// URL,\n"
    "     hf://owner/repo/path/file.gguf[@revision] (endpoint $ZEN_HF_ENDPOINT, token $HF_TOKEN),\n"
    "     ollama://[namespace/]name[:tag] (endpoint $ZEN_OLLAMA_ENDPOINT).\n"
    "The store is $ZEN_MODELS_DIR, else $XDG_CACHE_HOME/zen-engine/models, else\n"
    "~/.cache/zen-engine/models. An interrupted download resumes when pulled again.\n";

void print_table(const std::vector<store::StoreEntry>& entries, std::ostream& out) {
  size_t name_width = 4, arch_width = 4;
  for (const auto& e : entries) {
    name_width = std::max(name_width, e.name.size());
    arch_width = std::max(arch_width, e.architecture.size());
  }
  out << std::left << std::setw(static_cast<int>(name_width) + 2) << "NAME" << std::setw(12)
      << "SIZE" << std::setw(static_cast<int>(arch_width) + 2) << "ARCH"
      << "QUANT\n";
  for (const auto& e : entries) {
    out << std::setw(static_cast<int>(name_width) + 2) << e.name << std::setw(12)
        << text::format_bytes(e.size);
    if (e.error)
      out << "invalid: " << *e.error << "\n";
    else
      out << std::setw(static_cast<int>(arch_width) + 2) << e.architecture << e.quant << "\n";
  }
}

nlohmann::json entries_json(const std::filesystem::path& dir,
                            const std::vector<store::StoreEntry>& entries) {
  nlohmann::json models = nlohmann::json::array();
  for (const auto& e : entries) {
    nlohmann::json m{{"name", e.name}, {"path", e.path.string()}, {"size", e.size}};
    if (e.error) {
      m["valid"] = false;
      m["error"] = *e.error;
    } else {
      m["valid"] = true;
      m["architecture"] = e.architecture;
      m["quant"] = e.quant;
    }
    models.push_back(std::move(m));
  }
  return {{"models_dir", dir.string()},
          {"models", std::move(models)},
          {"partial", store::list_partials(dir)}};
}

}  // namespace

int cmd_pull(const Args& args, const GlobalOptions&) {
  po::options_description desc("zen-engine pull options");
  desc.add_options()("name", po::value<std::string>(), "store name (default: from the source)")(
      "sha256", po::value<std::string>(), "expected SHA-256 of the file (64 hex digits)")(
      "force", "fetch again although the name is in the store")("help,h", "show this help");
  po::options_description all;
  all.add(desc).add_options()("source", po::value<std::string>());
  po::positional_options_description pos;
  pos.add("source", 1);
  auto vm = parse(args, all, &pos);
  if (vm.count("help") || !vm.count("source")) {
    (vm.count("help") ? std::cout : std::cerr) << kPullUsage << "\n" << desc;
    return vm.count("help") ? 0 : 2;
  }
  store::PullOptions options;
  if (vm.count("name")) options.name = vm["name"].as<std::string>();
  if (vm.count("sha256")) options.sha256 = vm["sha256"].as<std::string>();
  options.force = vm.count("force") > 0;
  options.interactive_progress = ::isatty(STDERR_FILENO) == 1;
  options.endpoints = store::endpoints_from_environment();

  const auto dir = store::models_dir();
  store::PullResult r = store::pull(vm["source"].as<std::string>(), dir, options, std::cerr);
  if (r.already_present) {
    std::cout << r.name << " is already in the store (" << r.path.string() << "); `zen-engine rm "
              << r.name << "` or --force fetches it again\n";
    return 0;
  }
  std::cout << "pulled " << r.name << " (" << text::format_bytes(r.size)
            << (r.files > 1 ? ", " + std::to_string(r.files) + " files" : ", sha256 " + r.sha256)
            << (r.verified ? ", verified" : "") << ") into " << r.path.string() << "\n";
  return 0;
}

int cmd_list(const Args& args, const GlobalOptions&) {
  Output output = parse_report_options(args, "list");
  if (output == Output::help_shown) return 0;
  const auto dir = store::models_dir();
  std::vector<store::StoreEntry> entries = store::list_models(dir);
  if (output == Output::json) {
    std::cout
        << entries_json(dir, entries).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
        << "\n";
    return 0;
  }
  if (entries.empty())
    std::cout << "no models in " << dir.string() << "; fetch one with `zen-engine pull`\n";
  else
    print_table(entries, std::cout);
  for (const std::string& name : store::list_partials(dir))
    std::cout << "incomplete download: " << name << " (pull it again to resume, or `zen-engine rm "
              << name << "`)\n";
  return 0;
}

int cmd_rm(const Args& args, const GlobalOptions&) {
  po::options_description desc("zen-engine rm options");
  desc.add_options()("help,h", "show this help");
  po::options_description all;
  all.add(desc).add_options()("names", po::value<std::vector<std::string>>());
  po::positional_options_description pos;
  pos.add("names", -1);
  auto vm = parse(args, all, &pos);
  if (vm.count("help") || !vm.count("names")) {
    (vm.count("help") ? std::cout : std::cerr) << "usage: zen-engine rm NAME...\n" << desc;
    return vm.count("help") ? 0 : 2;
  }
  const auto dir = store::models_dir();
  for (const std::string& name : vm["names"].as<std::vector<std::string>>()) {
    for (const auto& path : store::remove_model(dir, name))
      std::cout << "removed " << path.string() << "\n";
  }
  return 0;
}

}  // namespace zen::cli
