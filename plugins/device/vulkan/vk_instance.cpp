#include "vk_instance.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

#include <zen/hardware.h>
#include <zen/plugin.hpp>

namespace zen_vk {
namespace {

std::mutex g_mutex;
std::shared_ptr<Instance> g_instance;
bool g_tried = false;

bool has_extension(VkPhysicalDevice pd, const char* name) {
  uint32_t n = 0;
  if (vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr) != VK_SUCCESS) return false;
  std::vector<VkExtensionProperties> ext(n);
  if (vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, ext.data()) != VK_SUCCESS) return false;
  for (const auto& e : ext)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

// Fills `out` for pd; false when the device cannot serve (no 1.2, no compute queue).
bool describe(VkPhysicalDevice pd, PhysicalDevice& out) {
  out.handle = pd;
  vkGetPhysicalDeviceProperties(pd, &out.props);
  if (out.props.apiVersion < VK_API_VERSION_1_2) return false;

  uint32_t nq = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, nullptr);
  std::vector<VkQueueFamilyProperties> q(nq);
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, q.data());
  bool found = false;
  for (uint32_t i = 0; i < nq && !found; ++i)
    if (q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      out.compute_family = i;
      found = true;
    }
  if (!found) return false;

  VkPhysicalDeviceMemoryProperties mem{};
  vkGetPhysicalDeviceMemoryProperties(pd, &mem);
  for (uint32_t i = 0; i < mem.memoryHeapCount; ++i)
    if (mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      out.local_heap_bytes = std::max<uint64_t>(out.local_heap_bytes, mem.memoryHeaps[i].size);

  VkPhysicalDeviceFeatures feats{};
  vkGetPhysicalDeviceFeatures(pd, &feats);
  out.float64 = feats.shaderFloat64 == VK_TRUE;

  out.has_pci = has_extension(pd, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME);
  VkPhysicalDevicePCIBusInfoPropertiesEXT pci{};
  pci.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT;
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm{};
  sm.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV;
  const bool has_sm = has_extension(pd, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
  if (out.has_pci) pci.pNext = has_sm ? &sm : nullptr;
  VkPhysicalDeviceSubgroupProperties sg{};
  sg.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  sg.pNext = out.has_pci ? static_cast<void*>(&pci) : (has_sm ? static_cast<void*>(&sm) : nullptr);
  out.driver = {};
  out.driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
  out.driver.pNext = &sg;
  VkPhysicalDeviceProperties2 p2{};
  p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  p2.pNext = &out.driver;
  vkGetPhysicalDeviceProperties2(pd, &p2);
  out.driver.pNext = nullptr;
  out.subgroup_size = sg.subgroupSize;
  out.sm_count = has_sm ? sm.shaderSMCount : 0;
  const VkSubgroupFeatureFlags need = VK_SUBGROUP_FEATURE_BASIC_BIT |
                                      VK_SUBGROUP_FEATURE_ARITHMETIC_BIT |
                                      VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
  out.subgroup_reduce =
      (sg.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) && (sg.supportedOperations & need) == need;
  if (out.has_pci)
    std::snprintf(out.pci_bus_id, sizeof out.pci_bus_id, "%04x:%02x:%02x.%x", pci.pciDomain,
                  pci.pciBus, pci.pciDevice, pci.pciFunction);
  return true;
}

}  // namespace

std::shared_ptr<Instance> Instance::get() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_instance || g_tried) return g_instance;
  g_tried = true;
  uint32_t version = 0;
  if (vkEnumerateInstanceVersion(&version) != VK_SUCCESS || version < VK_API_VERSION_1_2)
    return nullptr;
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "zen-engine";
  app.pEngineName = "zen-engine";
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo ci{};
  ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  ci.pApplicationInfo = &app;
  VkInstance inst = VK_NULL_HANDLE;
  if (vkCreateInstance(&ci, nullptr, &inst) != VK_SUCCESS) return nullptr;  // no ICD: 0 devices
  auto out = std::shared_ptr<Instance>(new Instance());
  out->instance_ = inst;
  uint32_t n = 0;
  if (vkEnumeratePhysicalDevices(inst, &n, nullptr) == VK_SUCCESS && n > 0) {
    std::vector<VkPhysicalDevice> pds(n);
    if (vkEnumeratePhysicalDevices(inst, &n, pds.data()) == VK_SUCCESS)
      for (uint32_t i = 0; i < n; ++i) {
        PhysicalDevice d;
        if (describe(pds[i], d)) out->devices_.push_back(d);
      }
  }
  g_instance = out;
  return g_instance;
}

void Instance::release() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_instance.reset();
  g_tried = false;
}

Instance::~Instance() {
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

namespace {
// Copies s into the fixed field, truncated and NUL-terminated.
template <size_t N>
void copy_field(char (&field)[N], const std::string& s) {
  const size_t n = std::min(s.size(), N - 1);
  std::memcpy(field, s.data(), n);
  field[n] = '\0';
}
}  // namespace

void fill_props(const PhysicalDevice& pd, zen_device_props& p) {
  copy_field(p.name, pd.props.deviceName);
  const uint32_t v = pd.props.apiVersion;
  std::string where;
  switch (pd.props.deviceType) {
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      p.type = ZEN_DEVICE_SOFTWARE;
      p.priority = 50;  // a CPU implementation of Vulkan: the CPU device runs ops first
      where = "software Vulkan on the CPU";
      break;
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      p.type = ZEN_DEVICE_GPU;
      p.priority = 200;
      where = "discrete GPU";
      break;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      p.type = ZEN_DEVICE_IGPU;
      p.priority = 150;
      where = "integrated GPU";
      break;
    default:
      p.type = ZEN_DEVICE_ACCEL;
      p.priority = 120;
      where = "Vulkan device";
      break;
  }
  p.vendor_id = pd.props.vendorID;
  p.device_id = pd.props.deviceID;
  p.memory_total = pd.local_heap_bytes;
  p.memory_free = 0;
  p.host_visible = 0;  // device-local buffers, staged uploads and downloads
  // Vulkan has no portable count of compute units; a CPU implementation runs one worker per
  // hardware thread (lavapipe's default).
  p.compute_units = pd.props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU
                        ? std::max(1u, std::thread::hardware_concurrency())
                        : 0;
  copy_field(p.pci_bus_id, pd.pci_bus_id);
  std::string pci;
  // The host's topology names the PCI device (zen/hardware.h); without it, the bus id alone.
  if (const auto* hw = zen::Host::service<zen_hardware_api>(ZEN_HARDWARE_API_NAME);
      hw && pd.has_pci && pd.pci_bus_id[0])
    if (const char* name = hw->pci_device_name(pd.pci_bus_id))
      pci = std::string(", PCI ") + pd.pci_bus_id + " " + name;
  if (pci.empty() && pd.pci_bus_id[0]) pci = std::string(", PCI ") + pd.pci_bus_id;
  copy_field(p.description, "Vulkan " + std::to_string(VK_API_VERSION_MAJOR(v)) + "." +
                                std::to_string(VK_API_VERSION_MINOR(v)) + "." +
                                std::to_string(VK_API_VERSION_PATCH(v)) + ", " + where + " (" +
                                pd.driver.driverName + " " + pd.driver.driverInfo + ")" + pci);
}

}  // namespace zen_vk
