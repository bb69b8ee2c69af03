# zen_check_plugin_boundaries(): plugins compile against the SDK (angle-bracket includes) and
# their own family's code only. A quoted #include in a file under plugins/<kind>/ must name a
# file next to it, in its plugin's directory (plugins/<kind>/<name>/), in plugins/<kind>/ itself
# or in a shared directory of that kind (plugins/device/common/, plugins/frontend/base/).
# Anything else (core/, host/ or services/ headers reached through a linked library's include
# directories, or a relative path out of plugins/) fails the configuration, unless it is one of
# the known exceptions below: headers still to move into the SDK or to be handed over by the
# host (docs/ARCHITECTURE.md, "Still to do"). Remove an entry when its include goes; never add
# one.
set(ZEN_PLUGIN_INCLUDE_EXCEPTIONS)

function(zen_check_plugin_boundaries plugins_dir)
  cmake_policy(PUSH)
  cmake_policy(SET CMP0057 NEW)  # IN_LIST (script mode starts with old policies)
  file(GLOB_RECURSE files RELATIVE "${plugins_dir}" "${plugins_dir}/*.c" "${plugins_dir}/*.cpp"
       "${plugins_dir}/*.h" "${plugins_dir}/*.hpp" "${plugins_dir}/*.glsl" "${plugins_dir}/*.comp"
       "${plugins_dir}/*.cl")
  set(bad "")
  set(used "")
  foreach(rel IN LISTS files)
    string(REPLACE "/" ";" parts "${rel}")
    list(LENGTH parts depth)
    list(GET parts 0 kind)
    if(depth GREATER 2)
      list(GET parts 1 name)
      set(plugin "${kind}/${name}")
    else()
      set(plugin "${kind}")
    endif()
    get_filename_component(dir "${plugins_dir}/${rel}" DIRECTORY)
    set(bases "${dir}" "${plugins_dir}/${plugin}" "${plugins_dir}/${kind}"
              "${plugins_dir}/${kind}/common" "${plugins_dir}/${kind}/base")
    file(STRINGS "${plugins_dir}/${rel}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" inc "${line}")
      set(ok FALSE)
      foreach(base IN LISTS bases)
        if(NOT ok AND EXISTS "${base}/${inc}")
          get_filename_component(real "${base}/${inc}" REALPATH)
          get_filename_component(root "${plugins_dir}/${kind}" REALPATH)
          string(FIND "${real}" "${root}/" at)
          if(at EQUAL 0)
            set(ok TRUE)
          endif()
        endif()
      endforeach()
      # A shader's SPIR-V, generated into the build tree from the plugin's own shaders/.
      if(NOT ok AND inc MATCHES "^([A-Za-z0-9_]+)\\.spv\\.inc$")
        if(EXISTS "${plugins_dir}/${plugin}/shaders/${CMAKE_MATCH_1}.comp")
          set(ok TRUE)
        endif()
      endif()
      if(NOT ok)
        if("${plugin}:${inc}" IN_LIST ZEN_PLUGIN_INCLUDE_EXCEPTIONS)
          list(APPEND used "${plugin}:${inc}")
        else()
          list(APPEND bad "  plugins/${rel}: #include \"${inc}\"")
        endif()
      endif()
    endforeach()
  endforeach()
  foreach(e IN LISTS ZEN_PLUGIN_INCLUDE_EXCEPTIONS)
    if(NOT e IN_LIST used)
      list(APPEND bad "  ${e}: listed as an exception, no longer included: remove it from the list")
    endif()
  endforeach()
  if(bad)
    list(JOIN bad "\n" text)
    message(FATAL_ERROR
            "plugins include code outside the SDK and their own directory "
            "(cmake/ZenPluginBoundaries.cmake):\n${text}\n"
            "move what they need into the SDK (sdk/include/zen) or the plugin.")
  endif()
  cmake_policy(POP)
endfunction()

# `cmake -DZEN_PLUGINS_DIR=... -P cmake/ZenPluginBoundaries.cmake` runs the check alone.
if(CMAKE_SCRIPT_MODE_FILE AND DEFINED ZEN_PLUGINS_DIR)
  zen_check_plugin_boundaries("${ZEN_PLUGINS_DIR}")
endif()
