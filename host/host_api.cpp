#include "host_api.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>

namespace zen::host {
namespace {

struct HostState {
  std::mutex mu;
  const Config* config = nullptr;
  std::map<std::string, const void*> services;
  std::map<std::string, std::string> config_values;  // stable storage for config_get results
  zen_log_level level = ZEN_LOG_INFO;
};

HostState& state() {
  static HostState s;
  return s;
}

const void* get_api(const char* name, uint16_t min_minor) {
  if (!name) return nullptr;
  HostState& s = state();
  std::lock_guard lock(s.mu);
  auto it = s.services.find(name);
  if (it == s.services.end()) return nullptr;
  const auto* hdr = static_cast<const zen_hdr*>(it->second);
  return hdr->abi_minor >= min_minor ? it->second : nullptr;
}

void log(zen_log_level level, const char* plugin, const char* msg) {
  if (level < state().level) return;
  static const char* names[] = {"debug", "info", "warn", "error"};
  const char* lv = level >= ZEN_LOG_DEBUG && level <= ZEN_LOG_ERROR ? names[level] : "?";
  std::fprintf(stderr, "[%s] %s: %s\n", lv, plugin ? plugin : "plugin", msg ? msg : "");
}

const char* config_get(const char* key) {
  if (!key) return nullptr;
  HostState& s = state();
  std::lock_guard lock(s.mu);
  if (!s.config) return nullptr;
  auto value = s.config->lookup(key);
  if (!value) return nullptr;
  // Keep one copy per key alive for the host's lifetime, as the ABI promises.
  auto [it, inserted] = s.config_values.try_emplace(key, *value);
  if (!inserted && it->second != *value) it->second = *value;
  return it->second.c_str();
}

void* alloc(size_t bytes, size_t alignment) {
  if (alignment < alignof(std::max_align_t)) alignment = alignof(std::max_align_t);
  if (alignment & (alignment - 1)) return nullptr;
  size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  return std::aligned_alloc(alignment, rounded ? rounded : alignment);
}

void free_mem(void* p) { std::free(p); }

}  // namespace

const zen_host_api* host_api(const Config& config) {
  static const zen_host_api api = {
      ZEN_HDR_INIT(zen_host_api), get_api, log, config_get, alloc, free_mem};
  std::lock_guard lock(state().mu);
  state().config = &config;
  return &api;
}

void register_service(const std::string& name, const void* table) {
  std::lock_guard lock(state().mu);
  state().services[name] = table;
}

void set_log_level(zen_log_level level) { state().level = level; }

zen_log_level parse_log_level(const std::string& name) {
  if (name == "debug") return ZEN_LOG_DEBUG;
  if (name == "warn") return ZEN_LOG_WARN;
  if (name == "error") return ZEN_LOG_ERROR;
  return ZEN_LOG_INFO;
}

}  // namespace zen::host
