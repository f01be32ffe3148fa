# Sources of src/engine/, listed explicitly (no GLOB).
target_sources(ccsim_lib PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/channels.cpp
  ${CMAKE_CURRENT_LIST_DIR}/child_process.cpp
  ${CMAKE_CURRENT_LIST_DIR}/coarse_rings.cpp
  ${CMAKE_CURRENT_LIST_DIR}/collective_plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/collective_runner.cpp
  ${CMAKE_CURRENT_LIST_DIR}/collective_shortcuts.cpp
  ${CMAKE_CURRENT_LIST_DIR}/critical_path_meetings.cpp
  ${CMAKE_CURRENT_LIST_DIR}/deadlock.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fused_groups.cpp
  ${CMAKE_CURRENT_LIST_DIR}/graph_zone.cpp
  ${CMAKE_CURRENT_LIST_DIR}/guarded_links.cpp
  ${CMAKE_CURRENT_LIST_DIR}/mirror_collectives.cpp
  ${CMAKE_CURRENT_LIST_DIR}/network_factors.cpp
  ${CMAKE_CURRENT_LIST_DIR}/non_finite.cpp
  ${CMAKE_CURRENT_LIST_DIR}/placement.cpp
  ${CMAKE_CURRENT_LIST_DIR}/replay.cpp
  ${CMAKE_CURRENT_LIST_DIR}/replay_progress.cpp
  ${CMAKE_CURRENT_LIST_DIR}/replica_fold.cpp
  ${CMAKE_CURRENT_LIST_DIR}/result.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sg_engine.cpp
  ${CMAKE_CURRENT_LIST_DIR}/simulation.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stream_dependencies.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stream_lanes.cpp
  ${CMAKE_CURRENT_LIST_DIR}/world_load.cpp
  ${CMAKE_CURRENT_LIST_DIR}/xml_check.cpp
)
