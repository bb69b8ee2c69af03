// What a plugin's tables must contain before the host uses them.
#pragma once

#include <string>

#include <zen/abi.h>

namespace zen::host {

// Check the vtable a plugin returned for its kind: ABI major, a struct_size covering every
// required member, and no NULL required member. Returns the refusal reason, or "" when the
// table is usable; `notes` gets what was accepted with a remark (absent optional members).
std::string check_vtable(zen_kind kind, const void* vtable, std::string& notes);

}  // namespace zen::host
