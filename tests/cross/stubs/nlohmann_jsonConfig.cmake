# Stand-in for nlohmann-json in cross builds: the host's header-only package.
include(${CMAKE_CURRENT_LIST_DIR}/zen_cross_deps.cmake)
if(NOT TARGET nlohmann_json::nlohmann_json)
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED GLOBAL)
  set_target_properties(nlohmann_json::nlohmann_json PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES ${ZEN_CROSS_HEADERS})
endif()
