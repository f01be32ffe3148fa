# ccsim whatif traces/qu2025-profile.json --platform hygon-dcu --set inter.bandwidth=x2 --set compute.scale=1.5 --format json
# exit 0
