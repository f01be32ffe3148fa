# Unit tests of src/trace/, listed explicitly.
target_sources(ccsim_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/native_reader_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/native_v2_test.cpp
)
