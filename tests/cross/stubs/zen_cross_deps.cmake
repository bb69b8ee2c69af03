# Included by the stub package configs in this directory (cross builds only): host-side
# dependencies that have no package for the target architecture without multiarch.
#   - header-only Boost and nlohmann-json: their headers are architecture-independent, so they
#     are exposed from /usr/include through a directory holding only them (adding /usr/include
#     itself would put the host's C library headers in front of the sysroot's);
#   - GoogleTest: built from the sources libgtest-dev ships in /usr/src/googletest.
# hwloc: the cross build configures with ZEN_WITH_HWLOC=OFF (no zen_hw). Idempotent: every
# stub includes this file.

set(ZEN_CROSS_HEADERS ${CMAKE_BINARY_DIR}/cross-headers)
foreach(dir boost nlohmann)
  if(NOT EXISTS ${ZEN_CROSS_HEADERS}/${dir} AND EXISTS /usr/include/${dir})
    file(MAKE_DIRECTORY ${ZEN_CROSS_HEADERS})
    file(CREATE_LINK /usr/include/${dir} ${ZEN_CROSS_HEADERS}/${dir} SYMBOLIC)
  endif()
endforeach()
