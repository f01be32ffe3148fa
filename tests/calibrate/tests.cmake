# Unit tests of src/calibrate/, listed explicitly.
target_sources(ccsim_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/benchmark_output_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/calibration_report_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compressor_fit_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compute_backend_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compute_fit_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/measurement_file_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/network_calibration_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/network_fit_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/network_validation_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_trace_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/profile_fit_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/targets_test.cpp
)
