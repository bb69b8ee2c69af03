# Cross toolchain for 64-bit Arm Linux with Debian's g++-aarch64-linux-gnu (sysroot
# /usr/aarch64-linux-gnu). Programs built with it run here under qemu-user: CTest and
# gtest_discover_tests go through CMAKE_CROSSCOMPILING_EMULATOR, with "-cpu max" so that qemu
# reports DOTPROD (its default CPU model lacks it and the neon variant's probe would refuse).
#
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
#
# The host-only dependencies (Boost, nlohmann-json, GoogleTest, hwloc) have no arm64 packages
# without multiarch; tests/cross/stubs provides stand-ins (see tests/cross/CMakeLists.txt).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(ZEN_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${ZEN_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${ZEN_CROSS_TRIPLE}-g++)
# The CPU variants' quarantine step partial-links with these: they must be the Arm binutils.
find_program(CMAKE_LINKER NAMES ${ZEN_CROSS_TRIPLE}-ld)
find_program(CMAKE_OBJCOPY NAMES ${ZEN_CROSS_TRIPLE}-objcopy)

set(CMAKE_SYSROOT_DIR /usr/${ZEN_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH ${CMAKE_SYSROOT_DIR})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

find_program(ZEN_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
if(ZEN_QEMU_AARCH64 AND NOT CMAKE_CROSSCOMPILING_EMULATOR)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${ZEN_QEMU_AARCH64} -cpu max -L ${CMAKE_SYSROOT_DIR})
endif()
