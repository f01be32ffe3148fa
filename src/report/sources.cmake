# Sources of src/report/, listed explicitly (no GLOB).
target_sources(ccsim_lib PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/breakdown.cpp
  ${CMAKE_CURRENT_LIST_DIR}/comparison.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cost.cpp
  ${CMAKE_CURRENT_LIST_DIR}/document.cpp
  ${CMAKE_CURRENT_LIST_DIR}/figures.cpp
  ${CMAKE_CURRENT_LIST_DIR}/json_tables.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report_document.cpp
  ${CMAKE_CURRENT_LIST_DIR}/summary.cpp
  ${CMAKE_CURRENT_LIST_DIR}/timeline.cpp
)
