# Sources of src/trace/, listed explicitly (no GLOB).
target_sources(ccsim_lib PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/trace.cpp
  ${CMAKE_CURRENT_LIST_DIR}/native_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/native_writer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/validate.cpp
)
