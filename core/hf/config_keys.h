// config.json -> GGUF metadata through an architecture plugin's zen_hf_key rows.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <zen/arch.h>
#include <nlohmann/json.hpp>

#include "gguf/gguf.h"

namespace zen::hf {

struct Found {
  const nlohmann::json* value = nullptr;  // nullptr: no alternative is present
  std::string_view path;                  // the alternative that answered
};
// The value at a dotted path ("rope_parameters.rope_theta"), trying '|'-separated
// alternatives in order (JSON null counts as absent).
Found find_path(const nlohmann::json& root, std::string_view paths);

// One KeyValue per GGUF key some row gives ("{arch}" replaced by `arch`), in row order; the last
// present row for a key wins. Throws std::runtime_error naming the config path and the type
// wanted when a value does not fit ("config.json: 'hidden_size' is -3, not an unsigned 32-bit
// integer").
std::vector<gguf::KeyValue> hparams_from_config(const nlohmann::json& config, const zen_hf_map& map,
                                                const std::string& arch);

}  // namespace zen::hf
