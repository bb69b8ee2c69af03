// Device enumeration through the ICD loader: every device of every platform, in platform
// order. No loader configuration, no driver, or a platform that fails to answer gives fewer
// (possibly 0) devices, never an error.
#pragma once

#include <zen/device.h>

#include <string>
#include <vector>

#include "cl_api.h"

namespace zen_opencl {

struct DeviceEntry {
  cl_platform_id platform;
  cl_device_id device;
};

// Enumerated once, on first use.
const std::vector<DeviceEntry>& devices();

// String info of a device or platform ("" when the query fails).
std::string device_string(cl_device_id d, cl_device_info what);
std::string platform_string(cl_platform_id p, cl_platform_info what);
bool device_has_extension(cl_device_id d, const char* ext);

void fill_props(const DeviceEntry& e, zen_device_props& out);

}  // namespace zen_opencl
