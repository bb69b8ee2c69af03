// JSON text to an ordered_json (the client's key order kept) in linear time. nlohmann's own
// parser looks every key up in the object built so far (ordered_map keeps a vector): quadratic
// in an object's keys, minutes of an I/O thread for one 8 MiB body of short keys. Here a hash
// of each open object's keys finds duplicates (the later value wins, in the first one's place,
// as nlohmann's parser does).
#pragma once

#include <optional>
#include <string_view>

#include "json_fields.h"

namespace zen::frontend {

// nullopt when `text` is not one valid JSON value (trailing bytes included). The caller bounds
// the nesting depth first (zen/json_depth.hpp).
std::optional<Json> parse_ordered(std::string_view text);

}  // namespace zen::frontend
