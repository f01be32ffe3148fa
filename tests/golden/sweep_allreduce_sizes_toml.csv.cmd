# ccsim sweep sweeps/allreduce_sizes.toml -j 2
# exit 0
