# Sources of src/predict/, listed explicitly (no GLOB).
target_sources(ccsim_lib PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/prediction.cpp
  ${CMAKE_CURRENT_LIST_DIR}/render.cpp
  ${CMAKE_CURRENT_LIST_DIR}/runs.cpp
  ${CMAKE_CURRENT_LIST_DIR}/target.cpp
)
