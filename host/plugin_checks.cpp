#include "plugin_checks.h"

#include <cstddef>
#include <cstring>
#include <vector>

#include <zen/arch.h>
#include <zen/device.h>
#include <zen/frontend.h>
#include <zen/quant.h>

namespace zen::host {
namespace {

struct Member {
  const char* name;
  size_t offset;
  bool required;
};

#define ZEN_MEMBER(T, m, req) \
  Member { #m, offsetof(T, m), req }

// Members of each table as of this host's ABI minor; required ones are those of 1.0.
const std::vector<Member>& members(zen_kind kind) {
  static const std::vector<Member> device = {ZEN_MEMBER(zen_device_v1, device_count, true),
                                             ZEN_MEMBER(zen_device_v1, device_props, true),
                                             ZEN_MEMBER(zen_device_v1, device_open, true),
                                             ZEN_MEMBER(zen_device_v1, device_close, true),
                                             ZEN_MEMBER(zen_device_v1, supports_op, true),
                                             ZEN_MEMBER(zen_device_v1, buffer_alloc, true),
                                             ZEN_MEMBER(zen_device_v1, buffer_free, true),
                                             ZEN_MEMBER(zen_device_v1, buffer_host_ptr, true),
                                             ZEN_MEMBER(zen_device_v1, upload, true),
                                             ZEN_MEMBER(zen_device_v1, download, true),
                                             ZEN_MEMBER(zen_device_v1, compute, true),
                                             ZEN_MEMBER(zen_device_v1, synchronize, true),
                                             ZEN_MEMBER(zen_device_v1, buffer_wrap_host, false),
                                             ZEN_MEMBER(zen_device_v1, last_error, false),
                                             ZEN_MEMBER(zen_device_v1, get_proc, false)};
  static const std::vector<Member> arch = {
      ZEN_MEMBER(zen_arch_v1, names, true), ZEN_MEMBER(zen_arch_v1, hparams, false),
      ZEN_MEMBER(zen_arch_v1, load, true), ZEN_MEMBER(zen_arch_v1, unload, true),
      ZEN_MEMBER(zen_arch_v1, build_graph, true)};
  static const std::vector<Member> quant = {ZEN_MEMBER(zen_quant_v1, types, true)};
  static const std::vector<Member> frontend = {ZEN_MEMBER(zen_frontend_v1, start, true),
                                               ZEN_MEMBER(zen_frontend_v1, stop, true)};
  static const std::vector<Member> none;
  switch (kind) {
    case ZEN_KIND_DEVICE:
      return device;
    case ZEN_KIND_ARCH:
      return arch;
    case ZEN_KIND_QUANT:
      return quant;
    case ZEN_KIND_FRONTEND:
      return frontend;
  }
  return none;
}

}  // namespace

std::string check_vtable(zen_kind kind, const void* vtable, std::string& notes) {
  const auto& list = members(kind);
  if (list.empty()) return "unknown plugin kind " + std::to_string(static_cast<int>(kind));
  if (!vtable) return "descriptor has no vtable";
  const auto* hdr = static_cast<const zen_hdr*>(vtable);
  if (hdr->abi_major != ZEN_ABI_MAJOR)
    return "vtable ABI major " + std::to_string(hdr->abi_major) + ", host speaks " +
           std::to_string(ZEN_ABI_MAJOR);
  const auto* bytes = static_cast<const unsigned char*>(vtable);
  std::string absent;
  for (const Member& m : list) {
    bool present = hdr->struct_size >= m.offset + sizeof(void*);
    const void* value = nullptr;
    if (present) std::memcpy(&value, bytes + m.offset, sizeof value);
    if (m.required && !present)
      return std::string("vtable too small (") + std::to_string(hdr->struct_size) +
             " bytes) to hold required member " + m.name;
    if (m.required && !value) return std::string("required member ") + m.name + " is NULL";
    if (!m.required && !value) absent += (absent.empty() ? "" : ", ") + std::string(m.name);
  }
  if (!absent.empty()) notes += "optional members absent: " + absent;
  return "";
}

}  // namespace zen::host
