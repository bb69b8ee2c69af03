// Vulkan error handling for the plugin: every failing call becomes a zen::Error whose message
// names the call and the VkResult ("vulkan: vkAllocateMemory failed:
// VK_ERROR_OUT_OF_DEVICE_MEMORY"), which the device's last_error then reports.
#pragma once

#include <vulkan/vulkan.h>

#include <string>

namespace zen_vk {

const char* result_name(VkResult r);

// Throws zen::Error (ZEN_ERR_OUT_OF_MEMORY for the out-of-memory results, else
// ZEN_ERR_INTERNAL) when r is not VK_SUCCESS.
void check(VkResult r, const char* call);

[[noreturn]] void fail(const std::string& what);  // ZEN_ERR_INTERNAL, "vulkan: " + what

}  // namespace zen_vk
