# Runs `ccsim report ARGS -o OUTDIR --no-figures` in WORKDIR and checks: exit 0; OUTDIR/report.md
# equals EXPECTED exactly, once OUTDIR is written @OUT@ (figures excluded: they depend on
# matplotlib); OUTDIR/report.html is well-formed (parsed as XML by PYTHON, when given).
# Set CCSIM_UPDATE_GOLDEN=1 to rewrite EXPECTED instead.
string(REPLACE "|" ";" ARGS "${ARGS}")
file(REMOVE_RECURSE ${OUTDIR})
execute_process(
  COMMAND ${CCSIM} report ${ARGS} -o ${OUTDIR} --no-figures
  WORKING_DIRECTORY ${WORKDIR}
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ccsim report: exit code ${rc}\n${out}${err}")
endif()
file(READ ${OUTDIR}/report.md actual)
string(REPLACE "${OUTDIR}" "@OUT@" actual "${actual}")
if(DEFINED ENV{CCSIM_UPDATE_GOLDEN})
  file(WRITE ${EXPECTED} "${actual}")
endif()
file(READ ${EXPECTED} expected)
if(NOT actual STREQUAL expected)
  message(FATAL_ERROR "report.md differs from ${EXPECTED}\n--- expected\n${expected}\n--- actual\n${actual}")
endif()
if(PYTHON)
  execute_process(
    COMMAND ${PYTHON} -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" ${OUTDIR}/report.html
    RESULT_VARIABLE xml_rc
    ERROR_VARIABLE xml_err)
  if(NOT xml_rc EQUAL 0)
    message(FATAL_ERROR "report.html is not well-formed: ${xml_err}")
  endif()
endif()
