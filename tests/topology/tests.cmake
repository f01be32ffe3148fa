# Unit tests of src/topology/, listed explicitly.
target_sources(ccsim_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/network_builder_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fat_tree_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/torus_dragonfly_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/platform_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/summary_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/network_model_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/accelerator_profile_test.cpp
)
