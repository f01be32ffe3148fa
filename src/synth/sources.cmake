# Sources of src/synth/, listed explicitly (no GLOB).
target_sources(ccsim_lib PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/job.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/megatron.cpp
  ${CMAKE_CURRENT_LIST_DIR}/megatron_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model_spec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pipeline_order.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stage_program.cpp
  ${CMAKE_CURRENT_LIST_DIR}/torch_program.cpp
)
