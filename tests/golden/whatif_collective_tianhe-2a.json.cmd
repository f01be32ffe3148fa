# ccsim whatif --collective all_reduce --bytes 256MiB --ranks 512 --platform tianhe-2a --set inter.bandwidth=x2 --format json
# exit 0
