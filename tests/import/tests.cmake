# Unit tests of src/import/, listed explicitly.
target_sources(ccsim_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/kineto_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kineto_run_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kineto_report_test.cpp
)
