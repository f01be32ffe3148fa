# Sources of src/measure/ (library ccsim_measure), listed explicitly (no GLOB).
# The UCX transport is built when pkg-config finds UCX (CCSIM_HAVE_UCX).
target_sources(ccsim_measure PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/communicator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/launch.cpp
  ${CMAKE_CURRENT_LIST_DIR}/measurement.cpp
  ${CMAKE_CURRENT_LIST_DIR}/real_executor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/selection.cpp
  ${CMAKE_CURRENT_LIST_DIR}/statistics.cpp
)
if(CCSIM_HAVE_UCX)
  target_sources(ccsim_measure PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/ucx_transport.cpp
  )
endif()
