#!/usr/bin/env bash
# clang-format (.clang-format at the top) over the project's own C++ sources.
#   scripts/format.sh            formats the C++ files changed against HEAD (staged or not)
#   scripts/format.sh --all      formats every tracked C++ file
#   scripts/format.sh --check    changes nothing; lists the files that are not formatted and
#                                exits 1 if there are any (add --all to check every file)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "format.sh: clang-format is not installed (apt-get install clang-format)" >&2; exit 2; }

all=0
check=0
for arg in "$@"; do
  case "$arg" in
    --all) all=1 ;;
    --check) check=1 ;;
    *) echo "usage: scripts/format.sh [--all] [--check]" >&2; exit 2 ;;
  esac
done

pattern=('*.cpp' '*.h' '*.hpp')
if [ "$all" = 1 ]; then
  mapfile -t files < <(git ls-files -- "${pattern[@]}")
else
  mapfile -t files < <({ git diff --name-only --diff-filter=d HEAD -- "${pattern[@]}"; git ls-files --others --exclude-standard -- "${pattern[@]}"; } | sort -u)
fi
[ "${#files[@]}" -gt 0 ] || exit 0

if [ "$check" = 1 ]; then
  bad=0
  for f in "${files[@]}"; do
    if ! clang-format "$f" | cmp -s - "$f"; then
      echo "$f"
      bad=1
    fi
  done
  exit "$bad"
fi
clang-format -i "${files[@]}"
