# Stand-in for Boost in cross builds: the header-only parts from the host's /usr/include/boost.
# program_options is not header-only; only the zen-engine CLI links it, and the cross build
# does not build the CLI.
include(${CMAKE_CURRENT_LIST_DIR}/zen_cross_deps.cmake)
if(NOT TARGET Boost::headers)
  add_library(Boost::headers INTERFACE IMPORTED GLOBAL)
  set_target_properties(Boost::headers PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${ZEN_CROSS_HEADERS})
  add_library(Boost::boost INTERFACE IMPORTED GLOBAL)
  set_target_properties(Boost::boost PROPERTIES INTERFACE_LINK_LIBRARIES Boost::headers)
  add_library(Boost::program_options INTERFACE IMPORTED GLOBAL)
  set_target_properties(Boost::program_options PROPERTIES INTERFACE_LINK_LIBRARIES Boost::headers)
endif()
set(Boost_INCLUDE_DIRS ${ZEN_CROSS_HEADERS})
foreach(comp IN LISTS Boost_FIND_COMPONENTS)
  set(Boost_${comp}_FOUND TRUE)
endforeach()
