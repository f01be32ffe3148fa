# Sources of src/study/, listed explicitly (no GLOB).
target_sources(ccsim_lib PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/breakeven_study.cpp
  ${CMAKE_CURRENT_LIST_DIR}/collective_study.cpp
  ${CMAKE_CURRENT_LIST_DIR}/collective_whatif.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cost_study.cpp
  ${CMAKE_CURRENT_LIST_DIR}/data_folders.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_facts.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/measured_result.cpp
  ${CMAKE_CURRENT_LIST_DIR}/replay_job.cpp
  ${CMAKE_CURRENT_LIST_DIR}/replay_setup.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep_runner.cpp
  ${CMAKE_CURRENT_LIST_DIR}/synth_job.cpp
  ${CMAKE_CURRENT_LIST_DIR}/what_if.cpp
)
