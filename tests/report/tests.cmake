# Unit tests of src/report/, listed explicitly.
target_sources(ccsim_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/breakdown_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cost_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/document_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/figures_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report_document_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/summary_test.cpp
)
