# Unit tests of src/study/, listed explicitly.
target_sources(ccsim_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/breakeven_study_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/collective_study_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/collective_whatif_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cost_study_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/data_folders_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_report_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/measured_result_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/replay_setup_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep_runner_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/synth_job_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/what_if_test.cpp
)
