# ccsim replay traces/qu2025-profile.json --format csv
# exit 0
