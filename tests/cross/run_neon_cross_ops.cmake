# Script behind the neon_cross_ops test (cmake -P): configure, build, run. See CMakeLists.txt.
#   -DSOURCE_DIR=<repo> -DBINARY_DIR=<cross build dir> -DGENERATOR=<gen> [-DMAKE_PROGRAM=<path>]
cmake_minimum_required(VERSION 3.25)

function(skip why)
  message("neon_cross_ops: SKIPPED: ${why}")
  cmake_language(EXIT 77)
endfunction()

find_program(CROSS_CXX aarch64-linux-gnu-g++)
find_program(QEMU NAMES qemu-aarch64 qemu-aarch64-static)
if(NOT CROSS_CXX)
  skip("aarch64-linux-gnu-g++ not found (apt-get install g++-aarch64-linux-gnu)")
endif()
if(NOT QEMU)
  skip("qemu-aarch64 not found (apt-get install qemu-user)")
endif()
if(NOT EXISTS /usr/src/googletest/googletest/CMakeLists.txt)
  skip("no GoogleTest sources in /usr/src/googletest (apt-get install libgtest-dev)")
endif()
if(NOT EXISTS /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1)
  skip("no aarch64 sysroot in /usr/aarch64-linux-gnu (apt-get install libc6-dev-arm64-cross)")
endif()

cmake_host_system_information(RESULT ncores QUERY NUMBER_OF_LOGICAL_CORES)
string(TIMESTAMP t0 "%s")

# ---- can qemu-user run threads here? ------------------------------------------------------
# On some kernels qemu-user hangs in the guest's pthread_create. The CPU device starts one worker
# per CPU it may use, so there the op tests run pinned to a single CPU (no worker threads) and
# say so; elsewhere they run with every CPU, threads included.
set(sysroot /usr/aarch64-linux-gnu)
set(runner ${QEMU} -cpu max -L ${sysroot})
file(MAKE_DIRECTORY ${BINARY_DIR})
execute_process(
  COMMAND ${CROSS_CXX} -std=c++20 -O1 -I${SOURCE_DIR}/sdk/include
          ${SOURCE_DIR}/tests/cross/probe_plugin.cpp -o ${BINARY_DIR}/thread_check -pthread -ldl
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "neon_cross_ops: the cross compiler cannot build a test program:\n${out}")
endif()
execute_process(COMMAND ${runner} ${BINARY_DIR}/thread_check --thread-check TIMEOUT 15
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
  message("neon_cross_ops: qemu-user runs guest threads: op tests use every CPU")
else()
  file(READ /proc/self/status status)
  string(REGEX MATCH "Cpus_allowed_list:[ \t]*([0-9]+)" _ "${status}")
  set(cpu ${CMAKE_MATCH_1})
  find_program(TASKSET taskset)
  if(NOT TASKSET OR cpu STREQUAL "")
    message(FATAL_ERROR "neon_cross_ops: qemu-user hangs in pthread_create here (${rc}) and "
                        "taskset is missing to run the tests on one CPU")
  endif()
  message("neon_cross_ops: qemu-user hangs in the guest's pthread_create on this host (${rc}); "
          "running the op tests pinned to CPU ${cpu}, i.e. the CPU device with 1 thread")
  set(runner ${TASKSET} -c ${cpu} ${runner})
endif()
list(JOIN runner ";" emulator)

# ---- configure --------------------------------------------------------------------------
set(stubs ${SOURCE_DIR}/tests/cross/stubs)
set(gen_args -G ${GENERATOR})
if(MAKE_PROGRAM)
  list(APPEND gen_args -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${BINARY_DIR} ${gen_args}
    -DCMAKE_TOOLCHAIN_FILE=${SOURCE_DIR}/cmake/toolchains/aarch64-linux-gnu.cmake
    -DCMAKE_BUILD_TYPE=Release
    -DZEN_PLUGINS=cpu -DZEN_BUILD_TESTS=ON -DZEN_BUILD_BENCH=OFF -DZEN_WITH_HWLOC=OFF
    -DBoost_DIR=${stubs} -Dnlohmann_json_DIR=${stubs} -DGTest_DIR=${stubs}
    "-DCMAKE_CROSSCOMPILING_EMULATOR=${emulator}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message("${out}")
  message(FATAL_ERROR "neon_cross_ops: configuring the aarch64 build failed")
endif()

# ---- build: the neon variant and every ops_<family> test ---------------------------------
file(GLOB op_sources ${SOURCE_DIR}/tests/ops/*_test.cpp)
set(op_tests "")
foreach(src IN LISTS op_sources)
  get_filename_component(stem ${src} NAME_WE)
  string(REGEX REPLACE "_test$" "" family ${stem})
  list(APPEND op_tests ops_${family})
endforeach()
list(SORT op_tests)
execute_process(
  COMMAND ${CMAKE_COMMAND} --build ${BINARY_DIR} -j ${ncores} --target cpu-neon zen_probe_plugin ${op_tests}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message("${out}")
  message(FATAL_ERROR "neon_cross_ops: building the aarch64 neon variant / op tests failed")
endif()
string(TIMESTAMP t1 "%s")
math(EXPR build_s "${t1} - ${t0}")
message("neon_cross_ops: configured and built cpu-neon + ${op_tests} in ${build_s} s")

# ---- run under qemu ----------------------------------------------------------------------
# -cpu max: qemu's default model lacks DOTPROD, which the neon variant requires.
set(plugin ${BINARY_DIR}/lib/zen/plugins/zen-cpu-neon.so)
execute_process(COMMAND ${runner} ${BINARY_DIR}/bin/zen_probe_plugin ${plugin}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("neon_cross_ops: qemu -cpu max: ${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "neon_cross_ops: the neon variant's probe refuses qemu's max CPU")
endif()
# For the record: a CPU model without DOTPROD, which the variant must refuse.
execute_process(COMMAND ${QEMU} -cpu cortex-a72 -L ${sysroot} ${BINARY_DIR}/bin/zen_probe_plugin
                        ${plugin}
                OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("neon_cross_ops: qemu -cpu cortex-a72 (no DOTPROD): ${out}")

set(failed "")
set(total 0)
foreach(t IN LISTS op_tests)
  set(exe ${BINARY_DIR}/bin/${t})
  execute_process(COMMAND ${runner} ${exe} TIMEOUT 600
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  # Print what ran: every test's result line and the summary.
  string(REGEX MATCHALL "\\[ *(OK|FAILED|SKIPPED|PASSED|==========) *\\][^\n]*" lines "${out}")
  list(JOIN lines "\n  " lines)
  message("neon_cross_ops: ${t} (exit ${rc}):\n  ${lines}")
  string(REGEX MATCHALL "\\[       OK \\]" oks "${out}")
  list(LENGTH oks n_ok)
  math(EXPR total "${total} + ${n_ok}")
  if(NOT rc EQUAL 0)
    message("${out}")
    list(APPEND failed ${t})
  endif()
endforeach()
string(TIMESTAMP t2 "%s")
math(EXPR run_s "${t2} - ${t1}")
message("neon_cross_ops: ${total} op tests passed under qemu-aarch64 in ${run_s} s")
if(failed)
  message(FATAL_ERROR "neon_cross_ops: failed: ${failed}")
endif()
if(total EQUAL 0)
  message(FATAL_ERROR "neon_cross_ops: no op test ran (no device loaded?)")
endif()
