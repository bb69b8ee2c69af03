// The OpenCL headers at the 1.2 API level, and how this plugin reports a failing call: the
// call's name and the cl_int's name ("clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE (-11)").
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <string>

namespace zen_opencl {

// "CL_OUT_OF_RESOURCES", or "unknown OpenCL error" for codes this plugin does not know.
const char* cl_error_name(cl_int err);
// "opencl: <call> failed: <name> (<code>)".
std::string cl_failure(const char* call, cl_int err);
// Throws zen::Error (out of memory for the allocation codes, else internal) with cl_failure()
// unless err is CL_SUCCESS.
void cl_check(cl_int err, const char* call);

}  // namespace zen_opencl
