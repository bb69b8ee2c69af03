#include "services.h"

#include <zen/graph.h>

#include "graph/builder.h"
#include "host_api.h"
#include "model/model_file.h"
#if ZEN_HAVE_HWLOC
#include "hw/hardware_api.h"
#endif

namespace zen::host {

void register_core_services() {
  register_service(ZEN_GRAPH_API_NAME, zen::graph::graph_api());
  register_service(ZEN_MODEL_API_NAME, zen::model::ModelFile::api());
#if ZEN_HAVE_HWLOC
  // Detected once (on the first question) and handed to every device plugin.
  register_service(ZEN_HARDWARE_API_NAME, zen::hw::hardware_api());
#endif
}

}  // namespace zen::host
