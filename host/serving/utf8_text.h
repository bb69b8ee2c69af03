// Bytes made safe for JSON: token pieces can be partial UTF-8 (a byte-fallback token, half a
// byte-level character), and JSON strings must be valid.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace zen::serving {

// `bytes` with every ill-formed or cut-off sequence replaced by U+FFFD.
std::string valid_utf8(std::string_view bytes);

}  // namespace zen::serving
