# Build options shared by every part of the tree.
set(ZEN_PLUGINS "all" CACHE STRING "Plugins to build: 'all' or a ;-list such as cpu;qwen3;http")
option(ZEN_STATIC_PLUGINS "Link the chosen plugins into the zen-engine binary (no dlopen)" OFF)
option(ZEN_BUILD_TESTS "Build the test suite" ON)
option(ZEN_BUILD_BENCH "Build the microbenchmarks" OFF)
option(ZEN_WERROR "Treat warnings as errors" OFF)
set(ZEN_SANITIZE "" CACHE STRING "Sanitizers for the whole build, e.g. address,undefined")

set(ZEN_WARNING_FLAGS -Wall -Wextra)
if(ZEN_WERROR)
  list(APPEND ZEN_WARNING_FLAGS -Werror)
endif()
if(ZEN_SANITIZE)
  add_compile_options(-fsanitize=${ZEN_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${ZEN_SANITIZE})
endif()

# zen_plugin_enabled(<name> <out-var>): is plugin <name> in ZEN_PLUGINS?
function(zen_plugin_enabled name out)
  if(ZEN_PLUGINS STREQUAL "all" OR name IN_LIST ZEN_PLUGINS)
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

# zen_target_warnings(<target>): the project's warning set (zero warnings with -Wall -Wextra).
function(zen_target_warnings target)
  target_compile_options(${target} PRIVATE ${ZEN_WARNING_FLAGS})
endfunction()
