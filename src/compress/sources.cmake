# Sources of src/compress/, listed explicitly (no GLOB).
target_sources(ccsim_lib PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/ccsz_codec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/codec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/codec_benchmark.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compress_spec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compressor_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/quantize_codec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/quantizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/zfp_codec.cpp
)
