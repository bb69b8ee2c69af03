# zen_add_plugin(<target> SOURCES <files...> [LIBS <targets...>] [NEUTRAL_SOURCES <files...>])
#
# Builds a Zen Engine plugin: a MODULE library exporting only the three entry points, named
# zen-<target>.so. The same function serves the in-tree build and third parties, who get it
# from find_package(ZenSDK).
#
# In-tree with ZEN_STATIC_PLUGINS=ON the plugin becomes a static library whose entry points
# carry a per-plugin suffix; the host links every such library and finds them through a
# generated registration table (see host/CMakeLists.txt).
function(zen_add_plugin target)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  if(TARGET ZenSDK::sdk)
    set(sdk ZenSDK::sdk)
  else()
    set(sdk zen_sdk)
  endif()

  if(ZEN_STATIC_PLUGINS)
    string(MAKE_C_IDENTIFIER "${target}" id)
    add_library(${target} STATIC ${ARG_SOURCES})
    target_compile_definitions(${target} PRIVATE ZEN_STATIC_PLUGIN_ID=${id})
    set_property(GLOBAL APPEND PROPERTY ZEN_STATIC_PLUGIN_IDS ${id})
    set_property(GLOBAL APPEND PROPERTY ZEN_STATIC_PLUGIN_TARGETS ${target})
  else()
    add_library(${target} MODULE ${ARG_SOURCES})
    set_target_properties(${target} PROPERTIES PREFIX "" OUTPUT_NAME "zen-${target}")
    if(ZEN_BUILD_PLUGIN_DIR)
      set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ZEN_BUILD_PLUGIN_DIR})
    endif()
    # Only the entry points are exported; a plugin's internals never clash with the host's.
    set_target_properties(${target} PROPERTIES C_VISIBILITY_PRESET hidden
                                               CXX_VISIBILITY_PRESET hidden
                                               VISIBILITY_INLINES_HIDDEN ON)
    target_link_options(${target} PRIVATE -Wl,--no-undefined)
    if(ZEN_INSTALL_PLUGIN_DIR)
      install(TARGETS ${target} LIBRARY DESTINATION ${ZEN_INSTALL_PLUGIN_DIR})
    endif()
  endif()
  target_link_libraries(${target} PRIVATE ${sdk} ${ARG_LIBS})
  target_compile_features(${target} PRIVATE cxx_std_20)
  if(COMMAND zen_target_warnings)
    zen_target_warnings(${target})
  endif()
endfunction()
