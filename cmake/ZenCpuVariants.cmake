# zen_add_cpu_variant(<variant> SCORE <n> FEATURES <names...> FLAGS <flags...>
#                     SOURCES <isa sources...> PROBE <probe source> [LIBS <targets...>])
#
# Builds the CPU device plugin once per ISA level, as target cpu-<variant> (zen-cpu-<variant>.so).
# The kernel sources are compiled with the variant's -m flags inside their own namespace
# (ZEN_CPU_NS), so variants can also be linked into one static binary. The probe source is
# compiled with no ISA flags and no LTO: the host runs it before it knows whether this CPU can
# execute the rest. FEATURES are checked by name at probe time against cpuid *and* the OS
# (XCR0, arch_prctl for AMX), see zen/cpu_features.hpp.
function(zen_add_cpu_variant variant)
  cmake_parse_arguments(ARG "" "SCORE;PROBE" "FEATURES;FLAGS;SOURCES;LIBS" ${ARGN})
  set(target cpu-${variant})
  string(MAKE_C_IDENTIFIER "${variant}" ns_suffix)
  string(MAKE_C_IDENTIFIER "${target}" plugin_id)
  list(JOIN ARG_FEATURES "," features)
  set(defs ZEN_CPU_VARIANT="${variant}" ZEN_CPU_NS=zen_cpu_${ns_suffix}
           ZEN_CPU_SCORE=${ARG_SCORE} ZEN_CPU_REQUIRED_FEATURES="${features}")
  if(ZEN_STATIC_PLUGINS)
    list(APPEND defs ZEN_STATIC_PLUGIN_ID=${plugin_id})
  endif()

  add_library(${target}-isa OBJECT ${ARG_SOURCES})
  # -fno-gnu-unique: function-local statics become plain weak symbols, which the quarantine
  # below can make local (GNU-unique ones stay global and clash in static builds).
  # -O3 (except Debug): at RelWithDebInfo's -O2 GCC 12 neither unrolls the kernels' short
  # per-column loops nor keeps their arrays of vector accumulators in registers, and the
  # packed GEMM ran at a third of its -O3 speed (partial sums stored and reloaded per group).
  target_compile_options(
    ${target}-isa PRIVATE ${ARG_FLAGS} $<$<NOT:$<CONFIG:Debug>>:-O3>
                          $<$<CXX_COMPILER_ID:GNU>:-fno-gnu-unique>)
  target_compile_definitions(${target}-isa PRIVATE ${defs})
  target_link_libraries(${target}-isa PRIVATE zen_sdk ${ARG_LIBS})
  set_target_properties(${target}-isa PROPERTIES CXX_VISIBILITY_PRESET hidden
                                                 VISIBILITY_INLINES_HIDDEN ON)
  zen_target_warnings(${target}-isa)

  # Quarantine the ISA code: partial-link the variant's objects into one, make every symbol
  # local except the entry points, and dissolve the COMDAT groups (their copies are now
  # private). Without this the linker merges inline and template copies (std::string members,
  # say) across objects and may hand the ISA-neutral probe, the host (static builds) or another
  # variant an AVX-512 build of a function: SIGILL on CPUs without it.
  set(isa_obj ${CMAKE_CURRENT_BINARY_DIR}/${target}-isa.o)
  add_custom_command(
    OUTPUT ${isa_obj}
    COMMAND ${CMAKE_LINKER} -r -o ${isa_obj}.tmp $<TARGET_OBJECTS:${target}-isa>
    COMMAND ${CMAKE_OBJCOPY} --wildcard --keep-global-symbol=zen_plugin_* --remove-section=.group
            ${isa_obj}.tmp ${isa_obj}
    COMMAND ${CMAKE_COMMAND} -E rm -f ${isa_obj}.tmp
    DEPENDS ${target}-isa $<TARGET_OBJECTS:${target}-isa>
    COMMAND_EXPAND_LISTS VERBATIM
    COMMENT "Quarantining ${target} ISA objects")
  set_source_files_properties(${isa_obj} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)

  set_source_files_properties(${ARG_PROBE} PROPERTIES COMPILE_OPTIONS "-fno-lto")
  zen_add_plugin(${target} SOURCES ${ARG_PROBE} ${isa_obj} LIBS zen_hw_cpu ${ARG_LIBS})
  target_compile_definitions(${target} PRIVATE ${defs})
  set_property(GLOBAL APPEND PROPERTY ZEN_CPU_VARIANT_TARGETS ${target})
endfunction()
