// Builds the kernel program for one device, through an on-disk cache of program binaries.
//
// PoCL compiles OpenCL C with LLVM, which takes seconds; every test process opens the device
// again, so the binary (CL_PROGRAM_BINARIES) is kept in $XDG_CACHE_HOME/zen-engine/opencl/
// (else ~/.cache/zen-engine/opencl/) under a hash of everything the binary depends on: the
// source, the build options, the device name, the driver version and the platform version.
// The file repeats that identity in full and a checksum of the binary: a file whose identity
// differs (a hash collision, a stale format) or whose checksum fails (truncated, corrupt) or
// that the driver rejects is rebuilt from source and replaced, never trusted. Files are
// written to a temporary name and renamed, so a reader never sees half a file.
#pragma once

#include <string>

#include "cl_api.h"

namespace zen_opencl {

struct BuiltProgram {
  cl_program program = nullptr;
  bool from_cache = false;
  double millis = 0;       // time to create and build
  std::string cache_file;  // "" when the cache directory is unusable
};

// Throws zen::Error with the build log when the source does not build.
BuiltProgram build_program(cl_context ctx, cl_platform_id platform, cl_device_id dev,
                           const std::string& source, const std::string& options);

}  // namespace zen_opencl
