# Unit tests of src/synth/, listed explicitly.
target_sources(ccsim_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/megatron_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_options_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/megatron_run_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pipeline_order_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/torch_program_test.cpp
)
