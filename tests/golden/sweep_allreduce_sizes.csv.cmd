# ccsim sweep sweeps/allreduce_sizes.json -j 2
# exit 0
