#!/usr/bin/env bash
# Configures (once) and builds ccsim in build/ with Ninja and ccache. Incremental.
set -euo pipefail
cd "$(dirname "$0")/.."
"$PWD/scripts/install-deps.sh"
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
cmake --build build -- -j"$(nproc)"
