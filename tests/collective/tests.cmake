# Unit tests of src/collective/, listed explicitly.
target_sources(ccsim_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/ring_all_reduce_test.cpp
)
