# Unit tests of src/compress/, listed explicitly.
target_sources(ccsim_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/ccsz_codec_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/codec_benchmark_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/codec_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compress_spec_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compressor_model_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/model_reader_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/quantize_codec_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/quantizer_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/zfp_codec_test.cpp
)
