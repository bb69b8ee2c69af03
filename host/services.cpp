#include "services.h"

#include <zen/graph.h>

#include "graph/builder.h"
#include "host_api.h"
#include "model/model_file.h"

namespace zen::host {

void register_core_services() {
  register_service(ZEN_GRAPH_API_NAME, zen::graph::graph_api());
  register_service(ZEN_MODEL_API_NAME, zen::model::ModelFile::api());
}

}  // namespace zen::host
