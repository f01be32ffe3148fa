#!/usr/bin/env bash
# README command 1: install what is missing, build, and run the main job on the bundled
# default inputs (a replay of the published profile, printed as a per-operator table).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
build/ccsim replay traces/qu2025-profile.json
