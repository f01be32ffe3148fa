# Sources of src/core/, listed explicitly (no GLOB).
target_sources(ccsim_lib PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/command_line.cpp
  ${CMAKE_CURRENT_LIST_DIR}/data_files.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fingerprint.cpp
  ${CMAKE_CURRENT_LIST_DIR}/input_error.cpp
  ${CMAKE_CURRENT_LIST_DIR}/json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/json_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/markup.cpp
  ${CMAKE_CURRENT_LIST_DIR}/output_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/parse.cpp
  ${CMAKE_CURRENT_LIST_DIR}/progress.cpp
  ${CMAKE_CURRENT_LIST_DIR}/phase.cpp
  ${CMAKE_CURRENT_LIST_DIR}/spelling.cpp
  ${CMAKE_CURRENT_LIST_DIR}/text_lines.cpp
  ${CMAKE_CURRENT_LIST_DIR}/toml.cpp
  ${CMAKE_CURRENT_LIST_DIR}/units.cpp
  ${CMAKE_CURRENT_LIST_DIR}/utf8.cpp
)

# TOML (sweep specs, core/toml.hpp): cpptoml, header only (Debian's libcpptoml-dev).
find_path(CPPTOML_INCLUDE_DIR cpptoml.h)
if(NOT CPPTOML_INCLUDE_DIR)
  message(FATAL_ERROR "cpptoml.h not found: ccsim reads TOML sweep specs with cpptoml; install Debian's "
                      "libcpptoml-dev (scripts/install-deps.sh does)")
endif()
message(STATUS "cpptoml: ${CPPTOML_INCLUDE_DIR}/cpptoml.h")
target_include_directories(ccsim_lib SYSTEM PRIVATE ${CPPTOML_INCLUDE_DIR})
