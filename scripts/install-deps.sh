#!/usr/bin/env bash
# Installs the Debian packages ccsim needs, only those that are missing. Idempotent.
# Runs apt-get directly as root, through sudo otherwise.
set -euo pipefail

packages=(
  g++ cmake ninja-build ccache pkg-config
  libsimgrid-dev libboost-graph-dev libfmt-dev libcli11-dev nlohmann-json3-dev catch2
  libcpptoml-dev  # header-only TOML reader: ccsim sweep SPEC.toml
  libopenmpi-dev openmpi-bin libucx-dev ucx-utils libzfp-dev libbenchmark-dev iproute2
  zlib1g-dev  # gzip-compressed profiler traces (torch.profiler's .json.gz)
  libjemalloc-dev  # the ccsim executable's allocator (CMakeLists.txt: CCSIM_JEMALLOC)
  time  # /usr/bin/time: peak memory in bench/import_bench.sh (and its test)
  jupyter-nbconvert python3-nbclient python3-ipykernel python3-matplotlib python3-pandas  # notebooks/, ccsim report's figures
  clang libclang-rt-dev  # libFuzzer, ASan, UBSan runtimes for scripts/fuzz.sh (a Recommends of clang, not pulled in)
  clang-format  # scripts/format.sh: the layout of .clang-format, checked by the test command
  clang-tidy  # scripts/tidy.sh: .clang-tidy's checks on the files a commit changes, run by the test command
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! $sudo apt-get install -y --no-install-recommends "${missing[@]}"; then
  # Stale or empty package lists on a fresh machine: refresh once and retry.
  $sudo apt-get update
  $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi
