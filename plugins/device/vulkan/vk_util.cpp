#include "vk_util.h"

#include <zen/plugin.hpp>

namespace zen_vk {

const char* result_name(VkResult r) {
  switch (r) {
#define ZEN_VK_CASE(x) \
  case x:              \
    return #x;
    ZEN_VK_CASE(VK_SUCCESS)
    ZEN_VK_CASE(VK_NOT_READY)
    ZEN_VK_CASE(VK_TIMEOUT)
    ZEN_VK_CASE(VK_INCOMPLETE)
    ZEN_VK_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    ZEN_VK_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    ZEN_VK_CASE(VK_ERROR_INITIALIZATION_FAILED)
    ZEN_VK_CASE(VK_ERROR_DEVICE_LOST)
    ZEN_VK_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    ZEN_VK_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    ZEN_VK_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    ZEN_VK_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    ZEN_VK_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    ZEN_VK_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    ZEN_VK_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    ZEN_VK_CASE(VK_ERROR_FRAGMENTED_POOL)
    ZEN_VK_CASE(VK_ERROR_UNKNOWN)
    ZEN_VK_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    ZEN_VK_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    ZEN_VK_CASE(VK_ERROR_FRAGMENTATION)
    ZEN_VK_CASE(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    ZEN_VK_CASE(VK_PIPELINE_COMPILE_REQUIRED)
#undef ZEN_VK_CASE
    default:
      return "VK_RESULT_UNKNOWN";
  }
}

void check(VkResult r, const char* call) {
  if (r == VK_SUCCESS) return;
  const bool oom = r == VK_ERROR_OUT_OF_HOST_MEMORY || r == VK_ERROR_OUT_OF_DEVICE_MEMORY;
  throw zen::Error(oom ? ZEN_ERR_OUT_OF_MEMORY : ZEN_ERR_INTERNAL,
                   std::string("vulkan: ") + call + " failed: " + result_name(r) + " (" +
                       std::to_string(static_cast<int>(r)) + ")");
}

void fail(const std::string& what) { throw zen::Error(ZEN_ERR_INTERNAL, "vulkan: " + what); }

}  // namespace zen_vk
