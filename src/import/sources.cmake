# Sources of src/import/, listed explicitly (no GLOB).
target_sources(ccsim_lib PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/kineto_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kineto.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kineto_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kineto_run.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_summary.cpp
  ${CMAKE_CURRENT_LIST_DIR}/shapes.cpp
)
