#!/usr/bin/env bash
# clang-tidy (.clang-tidy's checks, every finding an error) on C++ files of src/, with the
# compile commands of a configured tree (default build-sanitize/, which scripts/sanitize.sh
# configures; its compiler is clang, as clang-tidy's parser).
#   scripts/tidy.sh [--tree DIR]            the .cpp files of src/ that the last commit or the
#                                           working tree changes (the test command runs this)
#   scripts/tidy.sh [--tree DIR] --all      every .cpp file of src/ (about 25 CPU minutes)
#   scripts/tidy.sh [--tree DIR] FILE...    those files
# A header's findings come with the files that include it. A clone without the last commit's
# parent (a shallow clone) checks the files that commit holds.
set -euo pipefail
cd "$(dirname "$0")/.."
tree=build-sanitize
if [ "${1:-}" = --tree ]; then
  tree=$2
  shift 2
fi
[ -f "$tree/compile_commands.json" ] || { echo "tidy: $tree/compile_commands.json missing: configure $tree first" >&2; exit 2; }
if [ "${1:-}" = --all ]; then
  mapfile -t files < <(git ls-files 'src/*.cpp')
elif [ $# -gt 0 ]; then
  files=("$@")
else
  if git rev-parse -q --verify HEAD~1 > /dev/null; then
    changed=$(git diff --name-only HEAD~1 -- 'src/*.cpp' 'src/*.hpp')
  else
    changed=$(git diff-tree --root --no-commit-id --name-only -r HEAD -- 'src/*.cpp' 'src/*.hpp')
  fi
  changed+=$'\n'$(git diff --name-only HEAD -- 'src/*.cpp' 'src/*.hpp')
  mapfile -t files < <(
    for f in $changed; do
      [ -f "$f" ] || continue
      case $f in
        *.cpp) echo "$f" ;;
        *.hpp) [ -f "${f%.hpp}.cpp" ] && echo "${f%.hpp}.cpp" ;;  # a header through its own source
      esac
    done | sort -u
  )
fi
if [ ${#files[@]} -eq 0 ]; then
  echo "tidy: no C++ file of src/ to check"
  exit 0
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 1 clang-tidy --quiet -p "$tree" > "$log" 2>&1; then
  echo "tidy: ${#files[@]} files as .clang-tidy says"
else
  grep -E 'error:|warning:' "$log" | sort -u >&2 || cat "$log" >&2
  echo "tidy: findings above (.clang-tidy); fix them, or write // NOLINT(check): reason on the line" >&2
  exit 1
fi
