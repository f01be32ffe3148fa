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
  # The difference as a unified diff (diff(1) is in every Debian base system), then how to
  # accept it.
  get_filename_component(golden_name ${EXPECTED} NAME_WE)
  set(actual_file ${CMAKE_CURRENT_BINARY_DIR}/${golden_name}.actual)
  file(WRITE ${actual_file} "${actual}")
  execute_process(COMMAND diff -u ${EXPECTED} ${actual_file} OUTPUT_VARIABLE delta)
  message(FATAL_ERROR "ccsim ${pretty}: output differs from ${EXPECTED}:\n${delta}\n"
                      "If the change is intended: CCSIM_UPDATE_GOLDEN=1 ctest -R golden.${golden_name}")
endif()
