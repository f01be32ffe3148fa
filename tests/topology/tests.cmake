# Unit tests of src/topology/, listed explicitly.
# No tests yet.
