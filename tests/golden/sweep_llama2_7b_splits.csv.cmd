# ccsim sweep sweeps/llama2_7b_splits.json -j 2
# exit 0
