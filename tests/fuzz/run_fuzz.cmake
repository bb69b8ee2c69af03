# Runs a file-reader fuzzer on a fresh copy of the seed corpus, so libFuzzer never writes new
# inputs (or crash files) into the source tree.
#   cmake -DFUZZER=... -DSEEDS=... -DWORK=... -DARGS="-runs=0;..." -P run_fuzz.cmake
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus ${WORK}/artifacts)
file(COPY ${SEEDS}/ DESTINATION ${WORK}/corpus)
execute_process(
  COMMAND ${FUZZER} ${WORK}/corpus ${ARGS} -rss_limit_mb=2048 -artifact_prefix=${WORK}/artifacts/
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${FUZZER} exited with ${rc}; crash inputs are in ${WORK}/artifacts")
endif()
