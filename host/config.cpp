#include "config.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <sstream>

namespace zen::host {
namespace {

using json = nlohmann::json;

[[noreturn]] void fail(const std::string& source, const std::string& key, const std::string& why) {
  throw ConfigError((source.empty() ? "config" : source) + ": '" + key + "' " + why);
}

std::string type_name(const json& v) { return v.type_name(); }

std::string get_string(const json& v, const std::string& src, const std::string& key) {
  if (!v.is_string()) fail(src, key, "must be a string, got " + type_name(v) + " " + v.dump());
  return v.get<std::string>();
}

std::vector<std::string> get_string_list(const json& v, const std::string& src,
                                         const std::string& key) {
  if (!v.is_array()) fail(src, key, "must be an array of strings, got " + type_name(v));
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i)
    out.push_back(get_string(v[i], src, key + "[" + std::to_string(i) + "]"));
  return out;
}

unsigned get_count(const json& v, const std::string& src, const std::string& key, unsigned max) {
  if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > max)
    fail(src, key, "must be an integer from 0 to " + std::to_string(max) + ", got " + v.dump());
  return v.get<unsigned>();
}

// Check that an object has only known keys; name the first unknown one and list the known.
void only_keys(const json& obj, const std::string& src, const std::string& prefix,
               std::initializer_list<const char*> known) {
  if (!obj.is_object())
    fail(src, prefix, "must be an object, got " + type_name(obj) + " " + obj.dump());
  for (const auto& [k, v] : obj.items()) {
    bool ok = false;
    for (const char* name : known) ok = ok || k == name;
    if (ok) continue;
    std::string list;
    for (const char* name : known) list += (list.empty() ? "" : ", ") + std::string(name);
    fail(src, prefix.empty() ? k : prefix + "." + k, "is not a known key (known: " + list + ")");
  }
}

void apply_plugins(Config& c, const json& v, const std::string& src) {
  only_keys(v, src, "plugins", {"paths"});
  if (v.contains("paths")) c.plugin_paths = get_string_list(v["paths"], src, "plugins.paths");
}

bool is_device_id(const std::string& id) {
  static const std::regex kDeviceId("[a-z][a-z0-9_-]*(:[0-9]+)?");
  return std::regex_match(id, kDeviceId);
}

std::string device_id_rule(const std::string& got) {
  return "must look like 'name' or 'name:index' (e.g. \"vulkan:0\", \"cpu\"), got \"" + got + "\"";
}

void apply_devices(Config& c, const json& v, const std::string& src) {
  c.devices = get_string_list(v, src, "devices");
  for (size_t i = 0; i < c.devices.size(); ++i)
    if (!is_device_id(c.devices[i]))
      fail(src, "devices[" + std::to_string(i) + "]", device_id_rule(c.devices[i]));
}

void apply_cpu(Config& c, const json& v, const std::string& src) {
  only_keys(v, src, "cpu", {"variant", "threads", "pinning", "repack"});
  // Read by the CPU plugin itself (Host::config("cpu.repack")); checked here.
  if (v.contains("repack") && !v["repack"].is_boolean())
    fail(src, "cpu.repack", "must be true or false, got " + v["repack"].dump());
  if (v.contains("variant")) c.cpu_variant = get_string(v["variant"], src, "cpu.variant");
  if (v.contains("threads")) c.cpu_threads = get_count(v["threads"], src, "cpu.threads", 4096);
  if (v.contains("pinning")) {
    std::string p = get_string(v["pinning"], src, "cpu.pinning");
    if (p == "none")
      c.cpu_pinning = Pinning::none;
    else if (p == "cores")
      c.cpu_pinning = Pinning::cores;
    else
      fail(src, "cpu.pinning", "must be \"cores\" or \"none\", got \"" + p + "\"");
  }
}

void apply_log(Config& c, const json& v, const std::string& src) {
  only_keys(v, src, "log", {"level"});
  if (v.contains("level")) {
    c.log_level = get_string(v["level"], src, "log.level");
    if (c.log_level != "debug" && c.log_level != "info" && c.log_level != "warn" &&
        c.log_level != "error")
      fail(src, "log.level",
           "must be one of debug, info, warn, error, got \"" + c.log_level + "\"");
  }
}

void apply_serve(Config& c, const json& v, const std::string& src) {
  only_keys(v, src, "serve",
            {"parallel", "queue", "ctx", "prefill_chunk", "max_batch_tokens",
             "prefill_while_decoding", "deterministic", "frontends", "mcp_config"});
  ServeConfig& s = c.serve;
  auto count = [&](const char* key, unsigned& out, unsigned lo, unsigned hi) {
    if (!v.contains(key)) return;
    const std::string name = std::string("serve.") + key;
    out = get_count(v[key], src, name, hi);
    if (out < lo)
      fail(src, name, "must be at least " + std::to_string(lo) + ", got " + v[key].dump());
  };
  count("parallel", s.parallel, 0, 1024);
  // At least 1: with no room to wait, every request (and model loading) would be refused.
  count("queue", s.queue, 1, 1u << 20);
  count("ctx", s.ctx, 16, 1u << 24);
  count("prefill_chunk", s.prefill_chunk, 1, 1u << 20);
  count("max_batch_tokens", s.max_batch_tokens, 1, 1u << 20);
  count("prefill_while_decoding", s.prefill_while_decoding, 1, 1u << 20);
  if (v.contains("deterministic")) {
    if (!v["deterministic"].is_boolean())
      fail(src, "serve.deterministic", "must be true or false, got " + v["deterministic"].dump());
    s.deterministic = v["deterministic"].get<bool>();
  }
  if (v.contains("frontends"))
    s.frontends = get_string_list(v["frontends"], src, "serve.frontends");
  if (v.contains("mcp_config")) {
    if (!v["mcp_config"].is_string() || v["mcp_config"].get<std::string>().empty())
      fail(src, "serve.mcp_config", "must be a file path, got " + v["mcp_config"].dump());
    s.mcp_config = v["mcp_config"].get<std::string>();
  }
}

// Plugin-private sections ("device": {"vulkan": {...}}) are objects of objects; their contents
// are validated by the plugin that reads them through config_get.
void check_plugin_sections(const json& v, const std::string& src, const std::string& key) {
  if (!v.is_object()) fail(src, key, "must be an object keyed by plugin name");
  for (const auto& [name, section] : v.items())
    if (!section.is_object()) fail(src, key + "." + name, "must be an object");
}

}  // namespace

Config parse_config(const std::string& text, const std::string& source) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    throw ConfigError((source.empty() ? "config" : source) + ": not valid JSON: " + e.what());
  }
  Config c;
  c.source = source;
  using Apply = std::function<void(Config&, const json&, const std::string&)>;
  static const std::map<std::string, Apply> kSections = {
      {"plugins", apply_plugins},
      {"devices", apply_devices},
      {"cpu", apply_cpu},
      {"log", apply_log},
      {"serve", apply_serve},
      {"device",
       [](Config&, const json& v, const std::string& s) { check_plugin_sections(v, s, "device"); }},
      {"frontend", [](Config&, const json& v, const std::string& s) {
         check_plugin_sections(v, s, "frontend");
       }}};
  if (!doc.is_object()) fail(source, "(top level)", "must be a JSON object, got " + type_name(doc));
  for (const auto& [key, value] : doc.items()) {
    auto it = kSections.find(key);
    if (it == kSections.end()) {
      std::string list;
      for (const auto& [name, _] : kSections) list += (list.empty() ? "" : ", ") + name;
      fail(source, key, "is not a known key (known: " + list + ")");
    }
    it->second(c, value, source);
  }
  c.raw = std::move(doc);
  return c;
}

std::optional<std::string> Config::lookup(const std::string& dotted_key) const {
  const json* node = &raw;
  std::stringstream parts(dotted_key);
  std::string part;
  while (std::getline(parts, part, '.')) {
    if (!node->is_object() || !node->contains(part)) return std::nullopt;
    node = &(*node)[part];
  }
  return node->is_string() ? node->get<std::string>() : node->dump();
}

std::string user_config_path() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  std::filesystem::path base =
      xdg && *xdg ? xdg : (home && *home ? std::string(home) + "/.config" : "");
  return base.empty() ? "" : (base / "zen-engine" / "config.json").string();
}

Config load_config(const std::optional<std::string>& explicit_path) {
  std::string path;
  bool must_exist = true;
  if (explicit_path) {
    path = *explicit_path;
  } else if (const char* env = std::getenv("ZEN_CONFIG"); env && *env) {
    path = env;
  } else {
    path = user_config_path();
    must_exist = false;
  }
  Config c;
  if (!path.empty() && (must_exist || std::filesystem::exists(path))) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ConfigError(path + ": cannot open config file");
    std::stringstream text;
    text << in.rdbuf();
    c = parse_config(text.str(), path);
  }
  if (const char* v = std::getenv("ZEN_CPU_VARIANT"); v && *v) {
    c.cpu_variant = v;
    c.raw["cpu"]["variant"] = v;
  }
  return c;
}

void set_devices_from_cli(Config& c, const std::vector<std::string>& flags) {
  std::vector<std::string> named;
  for (const std::string& flag : flags) {
    std::stringstream list(flag);
    for (std::string id; std::getline(list, id, ',');) {
      if (!is_device_id(id)) throw ConfigError("--device " + device_id_rule(id));
      named.push_back(id);
    }
  }
  if (named.empty()) return;
  const bool cpu_named = std::any_of(named.begin(), named.end(), [](const std::string& id) {
    return id == "cpu" || id.rfind("cpu:", 0) == 0;
  });
  if (!cpu_named) named.push_back("cpu");
  c.devices = std::move(named);
}

}  // namespace zen::host
