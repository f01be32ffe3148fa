# Sources of src/compress/, listed explicitly (no GLOB).
# No compiled sources yet (compressor_cost.hpp is header-only).
