// Registers the core's service tables (graph builder, ...) behind zen_host_api.get_api.
#pragma once

namespace zen::host {
void register_core_services();
}
