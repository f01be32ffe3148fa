# Sources of src/topology/, listed explicitly (no GLOB).
target_sources(ccsim_lib PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/network.cpp
  ${CMAKE_CURRENT_LIST_DIR}/network_builder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/node_spec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fat_tree.cpp
  ${CMAKE_CURRENT_LIST_DIR}/torus.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dragonfly.cpp
  ${CMAKE_CURRENT_LIST_DIR}/analysis.cpp
  ${CMAKE_CURRENT_LIST_DIR}/platform.cpp
  ${CMAKE_CURRENT_LIST_DIR}/simgrid_xml.cpp
  ${CMAKE_CURRENT_LIST_DIR}/summary.cpp
  ${CMAKE_CURRENT_LIST_DIR}/network_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/accelerator_profile.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compute_cost.cpp
)
