# Runs ccsim with ARGS in WORKDIR; checks the exit code and that stdout followed by stderr
# equals the EXPECTED file exactly. Set CCSIM_UPDATE_GOLDEN=1 to rewrite the file instead.
string(REPLACE "|" ";" ARGS "${ARGS}")
string(REPLACE ";" " " pretty "${ARGS}")
execute_process(
  COMMAND ${CCSIM} ${ARGS}
  WORKING_DIRECTORY ${WORKDIR}
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
set(actual "${out}${err}")
if(DEFINED ENV{CCSIM_UPDATE_GOLDEN})
  file(WRITE ${EXPECTED} "${actual}")
endif()
if(NOT rc EQUAL EXPECTED_RC)
  message(FATAL_ERROR "ccsim ${pretty}: exit code ${rc}, expected ${EXPECTED_RC}\n${actual}")
endif()
file(READ ${EXPECTED} expected)
if(NOT actual STREQUAL expected)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/actual.out "${actual}")
  message(FATAL_ERROR "ccsim ${pretty}: output differs from ${EXPECTED}\n--- expected\n${expected}\n--- actual\n${actual}")
endif()
