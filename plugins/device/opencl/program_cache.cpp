#include "program_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include <zen/plugin.hpp>

#include "platforms.h"

namespace zen_opencl {
namespace {

constexpr char kMagic[] = "ZENCLBIN1\n";  // the file format; bump when it changes
constexpr size_t kMagicLen = sizeof kMagic - 1;

uint64_t fnv1a(const void* data, size_t n, uint64_t h = 1469598103934665603ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

std::string hex(uint64_t v) {
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
  return b;
}

// The cache directory, created if missing; "" when there is none to use.
std::string cache_dir() {
  std::string base;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    base = x;
  else if (const char* h = std::getenv("HOME"); h && *h)
    base = std::string(h) + "/.cache";
  else
    return {};
  std::string dir = base;
  for (const char* part : {"/zen-engine", "/opencl"}) {
    dir += part;
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return {};
  }
  return dir;
}

void put_u64(std::string& s, uint64_t v) { s.append(reinterpret_cast<const char*>(&v), 8); }

// The binary stored in `path` for `identity`, or empty when the file is missing, belongs to
// another identity, or fails its checksum.
std::vector<unsigned char> read_cached(const std::string& path, const std::string& identity) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return {};
  std::string data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  size_t pos = 0;
  auto take = [&](void* out, size_t n) {
    if (data.size() - pos < n) return false;
    std::memcpy(out, data.data() + pos, n);
    pos += n;
    return true;
  };
  char magic[kMagicLen];
  uint64_t id_len = 0, bin_len = 0, bin_hash = 0;
  if (!take(magic, kMagicLen) || std::memcmp(magic, kMagic, kMagicLen) != 0) return {};
  if (!take(&id_len, 8) || id_len != identity.size() || data.size() - pos < id_len) return {};
  if (data.compare(pos, id_len, identity) != 0) return {};
  pos += id_len;
  if (!take(&bin_len, 8) || !take(&bin_hash, 8) || bin_len == 0 || data.size() - pos != bin_len)
    return {};
  if (fnv1a(data.data() + pos, bin_len) != bin_hash) return {};
  return std::vector<unsigned char>(data.begin() + static_cast<std::ptrdiff_t>(pos), data.end());
}

// Writes the file under a temporary name in the same directory, then renames it over `path`.
void write_cached(const std::string& path, const std::string& identity,
                  const std::vector<unsigned char>& bin) {
  std::string out(kMagic, kMagicLen);
  put_u64(out, identity.size());
  out += identity;
  put_u64(out, bin.size());
  put_u64(out, fnv1a(bin.data(), bin.size()));
  out.append(reinterpret_cast<const char*>(bin.data()), bin.size());
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return;
    f.write(out.data(), static_cast<std::streamsize>(out.size()));
    if (!f.good()) {
      f.close();
      std::remove(tmp.c_str());
      return;
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());
}

std::string build_log(cl_program prog, cl_device_id dev) {
  size_t n = 0;
  if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) != CL_SUCCESS)
    return {};
  std::string log(n, '\0');
  if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr) != CL_SUCCESS)
    return {};
  log.resize(std::strlen(log.c_str()));
  return log;
}

// The program from a cached binary, or nullptr when the driver does not take it.
cl_program from_binary(cl_context ctx, cl_device_id dev, const std::vector<unsigned char>& bin,
                       const std::string& options) {
  const size_t len = bin.size();
  const unsigned char* ptr = bin.data();
  cl_int status = CL_SUCCESS, err = CL_SUCCESS;
  cl_program prog = clCreateProgramWithBinary(ctx, 1, &dev, &len, &ptr, &status, &err);
  if (err != CL_SUCCESS || status != CL_SUCCESS || !prog) {
    if (prog) clReleaseProgram(prog);
    return nullptr;
  }
  if (clBuildProgram(prog, 1, &dev, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
    clReleaseProgram(prog);
    return nullptr;
  }
  return prog;
}

std::vector<unsigned char> program_binary(cl_program prog) {
  size_t size = 0;
  if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) != CL_SUCCESS ||
      size == 0)
    return {};
  std::vector<unsigned char> bin(size);
  unsigned char* ptr = bin.data();
  if (clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr) != CL_SUCCESS)
    return {};
  return bin;
}

}  // namespace

BuiltProgram build_program(cl_context ctx, cl_platform_id platform, cl_device_id dev,
                           const std::string& source, const std::string& options) {
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  const std::string identity = "source " + hex(fnv1a(source.data(), source.size())) + " " +
                               hex(fnv1a(source.data(), source.size(), 0x9e3779b97f4a7c15ull)) +
                               " " + std::to_string(source.size()) + "\noptions " + options +
                               "\ndevice " + device_string(dev, CL_DEVICE_NAME) + "\ndriver " +
                               device_string(dev, CL_DRIVER_VERSION) + "\nplatform " +
                               platform_string(platform, CL_PLATFORM_VERSION) + "\n";
  BuiltProgram out;
  const std::string dir = cache_dir();
  if (!dir.empty())
    out.cache_file = dir + "/" + hex(fnv1a(identity.data(), identity.size())) + ".bin";

  if (!out.cache_file.empty()) {
    const std::vector<unsigned char> bin = read_cached(out.cache_file, identity);
    if (!bin.empty()) {
      if (cl_program p = from_binary(ctx, dev, bin, options)) {
        out.program = p;
        out.from_cache = true;
        out.millis = elapsed();
        return out;
      }
    }
  }

  const char* text = source.c_str();
  const size_t len = source.size();
  cl_int err = CL_SUCCESS;
  cl_program prog = clCreateProgramWithSource(ctx, 1, &text, &len, &err);
  cl_check(err, "clCreateProgramWithSource");
  err = clBuildProgram(prog, 1, &dev, options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    std::string log = build_log(prog, dev);
    clReleaseProgram(prog);
    if (log.size() > 4000) log.resize(4000);
    throw zen::Error(ZEN_ERR_INTERNAL, cl_failure("clBuildProgram", err) + ": " + log);
  }
  out.program = prog;
  if (!out.cache_file.empty()) {
    const std::vector<unsigned char> bin = program_binary(prog);
    if (!bin.empty()) write_cached(out.cache_file, identity, bin);
  }
  out.millis = elapsed();
  return out;
}

}  // namespace zen_opencl
