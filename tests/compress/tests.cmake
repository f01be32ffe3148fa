# Unit tests of src/compress/, listed explicitly.
# No tests yet.
