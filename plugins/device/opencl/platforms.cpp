#include "platforms.h"

#include <cstdio>
#include <cstring>

namespace zen_opencl {

// cl_khr_pci_bus_info (not in the 1.2 headers): the device's PCI address.
#ifndef CL_DEVICE_PCI_BUS_INFO_KHR
#define CL_DEVICE_PCI_BUS_INFO_KHR 0x410F
typedef struct _cl_device_pci_bus_info_khr {
  cl_uint pci_domain, pci_bus, pci_device, pci_function;
} cl_device_pci_bus_info_khr;
#endif

const std::vector<DeviceEntry>& devices() {
  static const std::vector<DeviceEntry> list = [] {
    std::vector<DeviceEntry> out;
    cl_uint np = 0;
    // CL_PLATFORM_NOT_FOUND_KHR (no ICD) and any other failure mean no devices here.
    if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0) return out;
    std::vector<cl_platform_id> ps(np);
    if (clGetPlatformIDs(np, ps.data(), nullptr) != CL_SUCCESS) return out;
    for (cl_platform_id p : ps) {
      cl_uint nd = 0;
      if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
      std::vector<cl_device_id> ds(nd);
      if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, ds.data(), nullptr) != CL_SUCCESS) continue;
      for (cl_device_id d : ds) out.push_back({p, d});
    }
    return out;
  }();
  return list;
}

std::string device_string(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  if (clGetDeviceInfo(d, what, n, s.data(), nullptr) != CL_SUCCESS) return {};
  s.resize(std::strlen(s.c_str()));
  return s;
}

std::string platform_string(cl_platform_id p, cl_platform_info what) {
  size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  if (clGetPlatformInfo(p, what, n, s.data(), nullptr) != CL_SUCCESS) return {};
  s.resize(std::strlen(s.c_str()));
  return s;
}

bool device_has_extension(cl_device_id d, const char* ext) {
  const std::string all = " " + device_string(d, CL_DEVICE_EXTENSIONS) + " ";
  return all.find(std::string(" ") + ext + " ") != std::string::npos;
}

namespace {
template <class T>
T device_value(cl_device_id d, cl_device_info what) {
  T v{};
  if (clGetDeviceInfo(d, what, sizeof v, &v, nullptr) != CL_SUCCESS) return T{};
  return v;
}
}  // namespace

void fill_props(const DeviceEntry& e, zen_device_props& p) {
  const cl_device_id d = e.device;
  const std::string name = device_string(d, CL_DEVICE_NAME);
  std::snprintf(p.name, sizeof p.name, "%s", name.c_str());
  std::snprintf(p.description, sizeof p.description, "OpenCL %s, %s (driver %s)",
                platform_string(e.platform, CL_PLATFORM_NAME).c_str(),
                device_string(d, CL_DEVICE_VERSION).c_str(),
                device_string(d, CL_DRIVER_VERSION).c_str());
  const auto type = device_value<cl_device_type>(d, CL_DEVICE_TYPE);
  const bool unified = device_value<cl_bool>(d, CL_DEVICE_HOST_UNIFIED_MEMORY) != CL_FALSE;
  // Priorities: below the CPU plugin (100) for an OpenCL implementation on the CPU (PoCL);
  // above it for real GPUs, which the host then prefers when no config names devices; 10 below
  // the Vulkan plugin's for the same kind of device, so that of one GPU reached through both
  // APIs the host uses Vulkan (the faster path; docs/DEVICES.md).
  if (type & CL_DEVICE_TYPE_CPU) {
    p.type = ZEN_DEVICE_SOFTWARE;
    p.priority = 40;
  } else if (type & CL_DEVICE_TYPE_GPU) {
    p.type = unified ? ZEN_DEVICE_IGPU : ZEN_DEVICE_GPU;
    p.priority = unified ? 140 : 190;
  } else {
    p.type = ZEN_DEVICE_ACCEL;
    p.priority = 110;
  }
  p.vendor_id = device_value<cl_uint>(d, CL_DEVICE_VENDOR_ID);  // the PCI vendor id for GPUs
  p.device_id = 0;                                              // core OpenCL has no query
  p.memory_total = device_value<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE);
  p.memory_free = 0;  // OpenCL 1.2 has no query for it
  p.host_visible = 0;
  p.compute_units = device_value<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS);
  if (device_has_extension(d, "cl_khr_pci_bus_info")) {
    cl_device_pci_bus_info_khr bus{};
    if (clGetDeviceInfo(d, CL_DEVICE_PCI_BUS_INFO_KHR, sizeof bus, &bus, nullptr) == CL_SUCCESS)
      std::snprintf(p.pci_bus_id, sizeof p.pci_bus_id, "%04x:%02x:%02x.%x", bus.pci_domain,
                    bus.pci_bus, bus.pci_device, bus.pci_function);
  }
}

}  // namespace zen_opencl
