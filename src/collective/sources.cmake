# Sources of src/collective/, listed explicitly (no GLOB).
target_sources(ccsim_lib PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/schedule.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ring_all_reduce.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_executor.cpp
)
