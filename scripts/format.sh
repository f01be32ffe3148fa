#!/usr/bin/env bash
# Lays out the C++ of src/, tests/ and bench/ as .clang-format says (clang-format, Debian's
# clang-format package; scripts/install-deps.sh installs it).
#   scripts/format.sh          rewrites the files in place
#   scripts/format.sh --check  changes nothing; exit 1 naming each file whose layout differs
#                              (the test command runs this first)
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files 'src/*.cpp' 'src/*.hpp' 'tests/*.cpp' 'tests/*.hpp' 'bench/*.cpp' 'bench/*.hpp')
case "${1:-}" in
  "") clang-format -i "${files[@]}" ;;
  --check)
    report=$(mktemp)
    trap 'rm -f "$report"' EXIT
    if ! clang-format --dry-run -Werror "${files[@]}" 2> "$report"; then
      grep -o '^[^:]*\.[ch]pp' "$report" | sort -u | sed 's/^/format: differs from .clang-format: /' >&2
      echo "format: scripts/format.sh rewrites them" >&2
      exit 1
    fi
    echo "format: ${#files[@]} files as .clang-format says"
    ;;
  *) echo "usage: scripts/format.sh [--check]" >&2; exit 2 ;;
esac
