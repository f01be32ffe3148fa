# Golden end-to-end cases (docs/testing.md, "Golden tests"): run a program of ccsim on small
# inputs and compare its output with a file of tests/golden/ (tests/golden/golden.py).
#
#   ccsim_golden(NAME RC FILE "ARGS|SEPARATED|BY|PIPES"
#                [PROGRAM path] [IGNORE regex]... [IGNORE_BLOCK regex]... [OPTIONS option...])
#
# Arguments are separated by '|' (a ';' list would be split by add_test). PROGRAM is ccsim
# unless given. IGNORE leaves out of the comparison the lines a regex matches; IGNORE_BLOCK
# the lines from one it matches to the next empty line. Both are for lines beside the point of
# the golden: never for the figure it exists for. OPTIONS go to golden.py as they are (the
# report goldens' --outdir, --output, --well-formed).
find_program(CCSIM_GOLDEN_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT CCSIM_GOLDEN_PYTHON)
  find_program(CCSIM_GOLDEN_PYTHON python3 REQUIRED)
endif()

function(ccsim_golden name expected_rc expected_file args)
  cmake_parse_arguments(PARSE_ARGV 4 golden "" "PROGRAM" "IGNORE;IGNORE_BLOCK;OPTIONS")
  if(golden_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ccsim_golden(${name}): unknown arguments ${golden_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT golden_PROGRAM)
    set(golden_PROGRAM $<TARGET_FILE:ccsim>)
  endif()
  set(filters)
  foreach(regex IN LISTS golden_IGNORE)
    list(APPEND filters --ignore ${regex})
  endforeach()
  foreach(regex IN LISTS golden_IGNORE_BLOCK)
    list(APPEND filters --ignore-block ${regex})
  endforeach()
  add_test(NAME golden.${name}
    COMMAND ${CCSIM_GOLDEN_PYTHON} ${PROJECT_SOURCE_DIR}/tests/golden/golden.py
      --ccsim ${golden_PROGRAM} "--args=${args}" --rc ${expected_rc}
      --expected ${PROJECT_SOURCE_DIR}/tests/golden/${expected_file}
      --workdir ${PROJECT_SOURCE_DIR} --name ${name} --actual-dir ${PROJECT_BINARY_DIR}/tests/golden
      ${filters} ${golden_OPTIONS})
endfunction()
