# ccsim breakeven --platform hygon-dcu --compress ccsz:eb=1e-3 --sizes 2,64 --format json
# exit 0
