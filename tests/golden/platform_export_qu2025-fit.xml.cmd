# ccsim platform export qu2025-fit --xml
# exit 0
