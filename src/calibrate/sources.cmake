# Sources of src/calibrate/, listed explicitly (no GLOB).
target_sources(ccsim_lib PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/benchmark_output.cpp
  ${CMAKE_CURRENT_LIST_DIR}/calibration_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compressor_fit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compute_backend.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compute_fit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compute_fit_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compute_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compute_pricing.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_trace.cpp
  ${CMAKE_CURRENT_LIST_DIR}/profile_fit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/handoff_fit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/measurement_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/network_calibration.cpp
  ${CMAKE_CURRENT_LIST_DIR}/network_fit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/network_validation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/series.cpp
)
