# ccsim calibrate network tests/data/measure/tcp-np2.json --format json
# exit 0
