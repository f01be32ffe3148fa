# Unit tests of src/calibrate/, listed explicitly.
target_sources(ccsim_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/compressor_fit_test.cpp
)
