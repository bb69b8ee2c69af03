// Checks a tools/call's arguments against the tool's own input JSON Schema, so the schema a
// client reads in tools/list is exactly what the server enforces. Covers the keywords the
// tools here use: type (one or a list), properties, required, additionalProperties (bool),
// items, enum, minimum, maximum, minItems, minLength.
#pragma once

#include <string>

#include "jsonrpc.h"

namespace zen::mcp_server {

// Throws RpcError(kInvalidParams) naming the first failing field ("arguments.messages[0].role
// must be a string").
void check_against_schema(const Json& schema, const Json& value, const std::string& where);

}  // namespace zen::mcp_server
