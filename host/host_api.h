// The frozen zen_host_api handed to every plugin, and the registry of versioned service
// tables ("graph", "model", "engine") behind its get_api.
#pragma once

#include <cstdint>
#include <string>

#include <zen/abi.h>

#include "config.h"

namespace zen::host {

// The process-wide host API. `config` must outlive every plugin (main owns both).
const zen_host_api* host_api(const Config& config);

// Make a service table reachable through get_api(name, minor). Tables start with zen_hdr;
// a request for a newer minor than the table's gets NULL.
void register_service(const std::string& name, const void* table);

// Lowest level that is printed by the host's log function.
void set_log_level(zen_log_level level);
zen_log_level parse_log_level(const std::string& name);

}  // namespace zen::host
