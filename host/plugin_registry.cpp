#include "plugin_registry.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#define BOOST_DLL_USE_STD_FS
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>

#include "plugin_checks.h"

#ifndef ZEN_REL_PLUGIN_DIR
#define ZEN_REL_PLUGIN_DIR "../lib/zen/plugins"
#endif

namespace zen::host {

namespace fs = std::filesystem;

struct PluginRegistry::Library {
  boost::dll::shared_library lib;
};

const char* kind_name(zen_kind kind) {
  switch (kind) {
    case ZEN_KIND_DEVICE:
      return "device";
    case ZEN_KIND_ARCH:
      return "arch";
    case ZEN_KIND_QUANT:
      return "quant";
    case ZEN_KIND_FRONTEND:
      return "frontend";
  }
  return "unknown";
}

const char* state_name(PluginState state) {
  switch (state) {
    case PluginState::loaded:
      return "loaded";
    case PluginState::standby:
      return "standby";
    case PluginState::refused:
      return "refused";
  }
  return "?";
}

std::vector<std::string> plugin_search_dirs(const Config& config) {
  std::vector<std::string> dirs = config.plugin_paths;
  if (const char* env = std::getenv("ZEN_PLUGIN_PATH"); env && *env) {
    std::stringstream parts(env);
    std::string dir;
    while (std::getline(parts, dir, ':'))
      if (!dir.empty()) dirs.push_back(dir);
  }
  std::error_code ec;
  fs::path exe = boost::dll::program_location(ec);
  if (!ec) dirs.push_back((exe.parent_path() / ZEN_REL_PLUGIN_DIR).lexically_normal().string());
  return dirs;
}

PluginRegistry::PluginRegistry(const Config& config, const zen_host_api* host_api)
    : host_(host_api), dirs_(plugin_search_dirs(config)) {
  for (const StaticPlugin& sp : static_plugins()) {
    PluginRecord rec;
    rec.path = std::string("static:") + sp.id;
    consider(std::move(rec), sp.entry, nullptr);
  }
  std::set<fs::path> seen;
  for (const std::string& dir : dirs_) {
    std::error_code ec;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.path().extension() == ".so") files.push_back(entry.path());
    std::sort(files.begin(), files.end());  // deterministic order across runs
    for (const fs::path& file : files) {
      fs::path canonical = fs::weakly_canonical(file, ec);
      if (!seen.insert(ec ? file : canonical).second) continue;  // same file via two dirs
      consider_file(file.string());
    }
  }
  select(config);
}

PluginRegistry::~PluginRegistry() {
  for (size_t i = records_.size(); i-- > 0;)
    if (records_[i].state == PluginState::loaded && entries_[i].shutdown) entries_[i].shutdown();
  // libs_ release after every shutdown ran: no plugin code is unmapped while in use.
}

void PluginRegistry::consider_file(const std::string& path) {
  PluginRecord rec;
  rec.path = path;
  auto lib = std::make_shared<Library>();
  EntryPoints entry;
  try {
    lib->lib.load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    rec.reason = std::string("cannot load shared object: ") + e.what();
    records_.push_back(std::move(rec));
    entries_.push_back({});
    libs_.push_back(nullptr);
    return;
  }
  for (const char* sym :
       {ZEN_PLUGIN_PROBE_SYMBOL, ZEN_PLUGIN_INIT_SYMBOL, ZEN_PLUGIN_SHUTDOWN_SYMBOL}) {
    if (!lib->lib.has(sym)) {
      rec.reason = std::string("missing entry point ") + sym;
      records_.push_back(std::move(rec));
      entries_.push_back({});
      libs_.push_back(nullptr);  // unloads now: nothing from it was used
      return;
    }
  }
  entry.probe = lib->lib.get<uint32_t(char*, size_t)>(ZEN_PLUGIN_PROBE_SYMBOL);
  entry.init =
      lib->lib.get<zen_status(const zen_host_api*, zen_plugin_desc*)>(ZEN_PLUGIN_INIT_SYMBOL);
  entry.shutdown = lib->lib.get<void()>(ZEN_PLUGIN_SHUTDOWN_SYMBOL);
  if (lib->lib.has(ZEN_PLUGIN_LAST_ERROR_SYMBOL))
    entry.last_error = lib->lib.get<const char*()>(ZEN_PLUGIN_LAST_ERROR_SYMBOL);
  if (lib->lib.has(ZEN_PLUGIN_IDENTIFY_SYMBOL))
    entry.identify = lib->lib.get<zen_status(zen_plugin_desc*)>(ZEN_PLUGIN_IDENTIFY_SYMBOL);
  consider(std::move(rec), entry, std::move(lib));
}

void PluginRegistry::consider(PluginRecord rec, const EntryPoints& entry,
                              std::shared_ptr<Library> lib) {
  const size_t i = records_.size();
  records_.push_back(std::move(rec));
  entries_.push_back(entry);
  libs_.push_back(std::move(lib));
  PluginRecord& r = records_[i];
  char why[256] = {0};
  r.score = entry.probe(why, sizeof why);
  why[sizeof why - 1] = '\0';
  r.probe_reason = why;
  if (r.score == 0) {
    r.reason =
        "cannot run here (probe score 0)" + (r.probe_reason.empty() ? "" : ": " + r.probe_reason);
    libs_[i].reset();
    return;
  }
  zen_plugin_desc id{};
  id.h = ZEN_HDR_INIT(zen_plugin_desc);
  if (entry.identify && entry.identify(&id) == ZEN_OK && id.h.abi_major == ZEN_ABI_MAJOR &&
      id.name && *id.name) {
    r.kind = id.kind;
    r.name = id.name;
    r.version = id.version ? id.version : "";
    r.variant = id.variant ? id.variant : "";
    r.state = PluginState::standby;  // initialised by select() if chosen
    return;
  }
  initialise(i);
}

void PluginRegistry::initialise(size_t i) {
  PluginRecord& rec = records_[i];
  const EntryPoints& entry = entries_[i];
  auto refuse = [&](std::string why) {
    rec.state = PluginState::refused;
    rec.reason = std::move(why);
    rec.vtable = nullptr;
    libs_[i].reset();
  };
  zen_plugin_desc desc{};
  desc.h = ZEN_HDR_INIT(zen_plugin_desc);
  zen_status st = entry.init(host_, &desc);
  if (st != ZEN_OK)
    return refuse("init failed with status " + std::to_string(st) +
                  PluginRecord::failure_suffix(entry.last_error));
  rec.last_error = entry.last_error;
  rec.abi_major = desc.h.abi_major;
  rec.abi_minor = desc.h.abi_minor;
  auto shutdown_and_refuse = [&](std::string reason) {
    entry.shutdown();
    refuse(std::move(reason));
  };
  if (desc.h.abi_major != ZEN_ABI_MAJOR)
    return shutdown_and_refuse("built for ABI " + std::to_string(desc.h.abi_major) + "." +
                               std::to_string(desc.h.abi_minor) + ", host speaks ABI " +
                               std::to_string(ZEN_ABI_MAJOR) + ".x");
  if (desc.h.struct_size < offsetof(zen_plugin_desc, vtable) + sizeof(void*))
    return shutdown_and_refuse("descriptor too small (" + std::to_string(desc.h.struct_size) +
                               " bytes)");
  if (!desc.name || !*desc.name) return shutdown_and_refuse("descriptor has no name");
  rec.kind = desc.kind;
  rec.name = desc.name;
  rec.version = desc.version ? desc.version : "";
  rec.variant = desc.variant ? desc.variant : "";
  std::string notes;
  if (std::string bad = check_vtable(desc.kind, desc.vtable, notes); !bad.empty())
    return shutdown_and_refuse(bad);
  if (desc.h.abi_minor > ZEN_ABI_MINOR)
    notes = "built for newer ABI 1." + std::to_string(desc.h.abi_minor) + " (host 1." +
            std::to_string(ZEN_ABI_MINOR) + "): newer members ignored" +
            (notes.empty() ? "" : "; " + notes);
  rec.vtable = desc.vtable;
  rec.state = PluginState::loaded;
  rec.reason = notes;
}

void PluginRegistry::select(const Config& config) {
  // Plugins sharing (kind, name) compete: the configured CPU variant, else the best score;
  // the first found wins a tie (config dirs come before the install dir). Identified plugins
  // are initialised only when their turn comes: the preferred first, the next if it fails.
  std::map<std::pair<int, std::string>, std::vector<size_t>> groups;
  for (size_t i = 0; i < records_.size(); ++i)
    if (records_[i].state != PluginState::refused)
      groups[{records_[i].kind, records_[i].name}].push_back(i);
  for (auto& [key, members] : groups) {
    bool forced = false;
    std::optional<size_t> chosen;
    for (std::vector<size_t> left = members; !left.empty() && !chosen;) {
      const size_t i = pick(left, config, forced);
      std::erase(left, i);
      if (records_[i].state == PluginState::standby) initialise(i);
      if (records_[i].state == PluginState::loaded)
        chosen = i;
      else if (forced)
        no_cpu_variant(config);
    }
    if (!chosen) continue;  // every one failed its init
    PluginRecord& best = records_[*chosen];
    if (forced)
      best.reason = "chosen by cpu.variant" + (best.reason.empty() ? "" : "; " + best.reason);
    for (size_t i : members) {
      PluginRecord& r = records_[i];
      if (i == *chosen || r.state == PluginState::refused) continue;
      const bool initialised = r.state == PluginState::loaded;
      if (initialised) entries_[i].shutdown();
      r.state = PluginState::standby;
      r.vtable = nullptr;
      r.reason = (forced ? std::string("cpu.variant chose ") : std::string("lower score than ")) +
                 best.display_name() + " (" + std::to_string(best.score) + ")" +
                 (initialised ? "" : "; not initialised");
      libs_[i].reset();
    }
  }
}

size_t PluginRegistry::pick(const std::vector<size_t>& members, const Config& config,
                            bool& forced) const {
  const PluginRecord& first = records_[members.front()];
  forced = first.kind == ZEN_KIND_DEVICE && first.name == "cpu" && !config.cpu_variant.empty();
  if (!forced) {
    size_t best = members.front();
    for (size_t i : members)
      if (records_[i].score > records_[best].score) best = i;
    return best;
  }
  for (size_t i : members)
    if (records_[i].variant == config.cpu_variant) return i;
  no_cpu_variant(config);
}

void PluginRegistry::no_cpu_variant(const Config& config) const {
  std::string why = "no usable CPU variant '" + config.cpu_variant + "'";
  for (const PluginRecord& r : records_)
    if (r.state == PluginState::refused &&
        r.path.find("cpu-" + config.cpu_variant) != std::string::npos)
      why += ": " + r.reason;
  throw ConfigError("cpu.variant (or ZEN_CPU_VARIANT): " + why);
}

const PluginRecord* PluginRegistry::find(zen_kind kind, const std::string& name) const {
  for (const PluginRecord& r : records_)
    if (r.state == PluginState::loaded && r.kind == kind && r.name == name) return &r;
  return nullptr;
}

std::vector<const PluginRecord*> PluginRegistry::loaded(zen_kind kind) const {
  std::vector<const PluginRecord*> out;
  for (const PluginRecord& r : records_)
    if (r.state == PluginState::loaded && r.kind == kind) out.push_back(&r);
  return out;
}

}  // namespace zen::host
