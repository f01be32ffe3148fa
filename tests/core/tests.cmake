# Unit tests of src/core/, listed explicitly.
target_sources(ccsim_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/command_line_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/flat_map_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/input_error_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/json_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/output_file_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/parse_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/progress_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/phase_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/spelling_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/text_lines_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/toml_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/utf8_test.cpp
)
