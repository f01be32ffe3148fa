# Sources of src/collective/, listed explicitly (no GLOB).
target_sources(ccsim_lib PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/algorithm.cpp
  ${CMAKE_CURRENT_LIST_DIR}/algorithm_choice.cpp
  ${CMAKE_CURRENT_LIST_DIR}/schedule.cpp
  ${CMAKE_CURRENT_LIST_DIR}/step_driver.cpp
  ${CMAKE_CURRENT_LIST_DIR}/block_parts.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ring_phases.cpp
  ${CMAKE_CURRENT_LIST_DIR}/power_of_two_fold.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ring_all_reduce.cpp
  ${CMAKE_CURRENT_LIST_DIR}/recursive_doubling_all_reduce.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rabenseifner_all_reduce.cpp
  ${CMAKE_CURRENT_LIST_DIR}/binomial_broadcast.cpp
  ${CMAKE_CURRENT_LIST_DIR}/binomial_tree_all_reduce.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hierarchical_all_reduce.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ring_all_gather.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ring_reduce_scatter.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pairwise_all_to_all.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compressed_ring_all_reduce.cpp
  ${CMAKE_CURRENT_LIST_DIR}/homomorphic_ring_all_reduce.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compressed_all_gather_all_reduce.cpp
  ${CMAKE_CURRENT_LIST_DIR}/registry.cpp
  ${CMAKE_CURRENT_LIST_DIR}/error_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/breakeven.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_executor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/critical_path_executor.cpp
)
