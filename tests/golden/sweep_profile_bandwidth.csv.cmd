# ccsim sweep sweeps/profile_bandwidth.json -j 2
# exit 0
