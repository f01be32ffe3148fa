# Sources of src/measure/ (library ccsim_measure), listed explicitly (no GLOB).
# The UCX transport is built when pkg-config finds UCX (CCSIM_HAVE_UCX).
if(CCSIM_HAVE_UCX)
  target_sources(ccsim_measure PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/ucx_transport.cpp
  )
endif()
