# ccsim cost traces/qu2025-profile.json --platform dgx-h100-superpod --iterations 10000 --compress cuszp:eb=1e-3 --format csv
# exit 0
