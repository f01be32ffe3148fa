# Unit tests of src/collective/, listed explicitly.
target_sources(ccsim_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/support.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ring_all_reduce_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/recursive_doubling_all_reduce_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rabenseifner_all_reduce_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/binomial_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hierarchical_all_reduce_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ring_collectives_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compressed_ring_all_reduce_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/homomorphic_ring_all_reduce_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compressed_all_gather_all_reduce_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/error_model_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/breakeven_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/registry_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/critical_path_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_executor_test.cpp
)
