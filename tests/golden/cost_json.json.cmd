# ccsim cost traces/qu2025-profile.json --iterations 10000 --price 2 --power 0.5 --compress cuszp:eb=1e-3 --format json
# exit 0
