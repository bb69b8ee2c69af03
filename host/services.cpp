#include "services.h"

#include <zen/graph.h>

#include "graph/builder.h"
#include "host_api.h"

namespace zen::host {

void register_core_services() { register_service(ZEN_GRAPH_API_NAME, zen::graph::graph_api()); }

}  // namespace zen::host
