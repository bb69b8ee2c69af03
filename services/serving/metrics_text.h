// The engines' metrics in Prometheus' text exposition format (version 0.0.4), one series per
// model, labelled model="<id>".
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/metrics.h"

namespace zen::serving {

std::string prometheus_text(const std::vector<std::pair<std::string, engine::Metrics>>& models);

// A label value with \, " and newlines escaped as the format requires.
std::string escape_label(const std::string& value);

}  // namespace zen::serving
