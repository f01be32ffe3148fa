# Unit tests of src/predict/, listed explicitly: in ccsim_engine_tests, since a prediction replays.
target_sources(ccsim_engine_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/prediction_test.cpp
)
